#include "attention_reference.h"

#include <cmath>
#include <limits>

namespace repro::test {

using torch::Tensor;
using torch::indexing::Slice;

Tensor linear(const Tensor& x, const Params& p, const std::string& name, bool bias) {
  Tensor y = torch::matmul(x, p.at(name + ".weight").t());
  if (bias && p.count(name + ".bias")) y = y + p.at(name + ".bias");
  return y;
}

Tensor masked_softmax(Tensor logits, const Tensor& pad, int64_t b) {
  if (pad.defined())
    for (int64_t j = 0; j < logits.size(1); ++j)
      if (pad[b][j].item<bool>()) logits.index_put_({Slice(), j}, -std::numeric_limits<double>::infinity());
  const Tensor shifted = logits - std::get<0>(logits.max(1, true));
  const Tensor e = torch::exp(shifted);
  return e / e.sum(1, true);
}

Tensor cols(const Tensor& m, int64_t start, int64_t width) { return m.index({Slice(), Slice(start, start + width)}); }

Tensor rms(const Tensor& o, const Tensor& weight) { return o / torch::sqrt((o * o).mean(-1, true) + 1e-5) * weight; }

Tensor differential_reference(const Tensor& x, const Tensor& pad, const Params& p, int64_t h, double lambda_init,
                              const Tensor& lambda, const Tensor& gates, torch::Tensor* maps) {
  const int64_t B = x.size(0), N = x.size(1), D = x.size(2), d = D / (2 * h);
  const Tensor Q = linear(x, p, "q", false), K = linear(x, p, "k", false), V = linear(x, p, "v", false);
  Tensor out = torch::zeros({B, N, D}, x.options());
  if (maps) *maps = torch::zeros({B, h, N, N}, x.options());
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < h; ++i) {
      const Tensor a1 = masked_softmax(
          torch::matmul(cols(Q[b], 2 * i * d, d), cols(K[b], 2 * i * d, d).t()) / std::sqrt(double(d)), pad, b);
      const Tensor a2 = masked_softmax(
          torch::matmul(cols(Q[b], (2 * i + 1) * d, d), cols(K[b], (2 * i + 1) * d, d).t()) / std::sqrt(double(d)), pad,
          b);
      Tensor a;
      if (gates.defined()) {
        const Tensor g = gates[b].index({Slice(), i}).unsqueeze(1);  // (N, 1)
        a = g * a1 - (1 - g) * a2;
      } else {
        a = a1 - lambda * a2;
      }
      if (maps) maps->index_put_({b, i}, a);
      const Tensor o = torch::matmul(a, cols(V[b], i * 2 * d, 2 * d));  // (N, 2d)
      out.index_put_({b, Slice(), Slice(i * 2 * d, (i + 1) * 2 * d)},
                     rms(o, p.at("head_norm.weight")) * (1 - lambda_init));
    }
  return linear(out, p, "out", false);
}

Tensor vanilla_reference(const Tensor& x, const Tensor& pad, const Params& p, int64_t heads, Tensor* maps) {
  const int64_t B = x.size(0), N = x.size(1), D = x.size(2), d = D / heads;
  const Tensor qkv = linear(x, p, "qkv");
  Tensor out = torch::zeros({B, N, D}, x.options());
  if (maps) *maps = torch::zeros({B, heads, N, N}, x.options());
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < heads; ++i) {
      const Tensor q = cols(qkv[b], i * d, d), k = cols(qkv[b], D + i * d, d), v = cols(qkv[b], 2 * D + i * d, d);
      const Tensor a = masked_softmax(torch::matmul(q, k.t()) / std::sqrt(double(d)), pad, b);
      if (maps) maps->index_put_({b, i}, a);
      out.index_put_({b, Slice(), Slice(i * d, (i + 1) * d)}, torch::matmul(a, v));
    }
  return linear(out, p, "out");
}

}  // namespace repro::test
