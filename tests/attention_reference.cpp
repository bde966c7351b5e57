#include "attention_reference.h"

#include <cmath>
#include <limits>

namespace repro::test {

namespace {

using torch::Tensor;
using torch::indexing::Slice;

Tensor linear(const Tensor& x, const Params& p, const std::string& name, bool bias = true) {
  Tensor y = torch::matmul(x, p.at(name + ".weight").t());
  if (bias && p.count(name + ".bias")) y = y + p.at(name + ".bias");
  return y;
}

// Row softmax of one (N, N) logit matrix with padded key columns of batch row b removed.
Tensor masked_softmax(Tensor logits, const Tensor& pad, int64_t b) {
  if (pad.defined())
    for (int64_t j = 0; j < logits.size(1); ++j)
      if (pad[b][j].item<bool>()) logits.index_put_({Slice(), j}, -std::numeric_limits<double>::infinity());
  const Tensor shifted = logits - std::get<0>(logits.max(1, true));
  const Tensor e = torch::exp(shifted);
  return e / e.sum(1, true);
}

Tensor cols(const Tensor& m, int64_t start, int64_t width) { return m.index({Slice(), Slice(start, start + width)}); }

Tensor rms(const Tensor& o, const Tensor& weight) {  // over the last dim, eps 1e-5
  return o / torch::sqrt((o * o).mean(-1, true) + 1e-5) * weight;
}

// Shared recipe of diff (gates undefined) and dgsa (gates: (B, N, h)).
Tensor differential(const Tensor& x, const Tensor& pad, const Params& p, int64_t h, double lambda_init,
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

}  // namespace

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

Tensor diff_reference(const Tensor& x, const Tensor& pad, const Params& p, int64_t h, double lambda_init,
                      Tensor* maps) {
  const Tensor lambda = torch::exp((p.at("lambda_q1") * p.at("lambda_k1")).sum()) -
                        torch::exp((p.at("lambda_q2") * p.at("lambda_k2")).sum()) + lambda_init;
  return differential(x, pad, p, h, lambda_init, lambda, Tensor(), maps);
}

Tensor dgsa_reference(const Tensor& x, const Tensor& pad, const Params& p, int64_t h, double lambda_init,
                      bool q_residual, Tensor* maps) {
  const Tensor gates = torch::sigmoid(linear(x, p, "gate"));  // (B, N, h)
  Tensor y = differential(x, pad, p, h, lambda_init, Tensor(), gates, maps);
  if (q_residual) y = y + linear(x, p, "q", false);
  return y;
}

Tensor plug_reference(const Tensor& x, const Tensor& pad, const Params& p, int64_t heads, Tensor* maps) {
  const int64_t B = x.size(0), N = x.size(1), D = x.size(2), d = D / heads;
  const Tensor qkv = linear(x, p, "qkv"), gate_qk = linear(x, p, "gate_qk");
  const int64_t dg = gate_qk.size(2) / 2;
  const double w0 = p.at("gml_out.weight")[0][0].item<double>(), w1 = p.at("gml_out.weight")[1][0].item<double>();
  const double b0 = p.at("gml_out.bias")[0].item<double>(), b1 = p.at("gml_out.bias")[1].item<double>();
  Tensor out = torch::zeros({B, N, D}, x.options());
  if (maps) *maps = torch::zeros({B, heads, N, N}, x.options());
  for (int64_t b = 0; b < B; ++b) {
    const Tensor r = torch::matmul(cols(gate_qk[b], 0, dg), cols(gate_qk[b], dg, dg).t()) / std::sqrt(double(dg));
    const Tensor g = torch::tanh((w0 * r + b0) * (w1 * r + b1));  // (N, N), shared by the heads
    for (int64_t i = 0; i < heads; ++i) {
      const Tensor q = cols(qkv[b], i * d, d), k = cols(qkv[b], D + i * d, d), v = cols(qkv[b], 2 * D + i * d, d);
      const Tensor a = masked_softmax(torch::matmul(q, k.t()) / std::sqrt(double(d)) * (1 + g), pad, b);
      if (maps) maps->index_put_({b, i}, a);
      out.index_put_({b, Slice(), Slice(i * d, (i + 1) * d)}, torch::matmul(a, v));
    }
  }
  return linear(out, p, "out");
}

Tensor gi_reference(const Tensor& x, const Tensor& pad, const Params& p, int64_t heads, double inh_p) {
  const int64_t B = x.size(0), N = x.size(1), D = x.size(2), d = D / heads;
  const Tensor qkv = linear(x, p, "qkv");
  auto gated = [&](const Tensor& base, const std::string& side) {
    const Tensor s = linear(torch::gelu(linear(x, p, side + "_gate")), p, side + "_inhibit");  // (B, N, D)
    double peak = -std::numeric_limits<double>::infinity();
    for (int64_t b = 0; b < B; ++b)
      for (int64_t n = 0; n < N; ++n)
        if (!pad.defined() || !pad[b][n].item<bool>()) peak = std::max(peak, s[b][n].max().item<double>());
    return base * (torch::gelu(s - inh_p * peak) + 1);
  };
  const Tensor Q = gated(cols(qkv.reshape({B * N, 3 * D}), 0, D).reshape({B, N, D}), "q");
  const Tensor K = gated(cols(qkv.reshape({B * N, 3 * D}), D, D).reshape({B, N, D}), "k");
  const Tensor V = cols(qkv.reshape({B * N, 3 * D}), 2 * D, D).reshape({B, N, D});
  Tensor out = torch::zeros({B, N, D}, x.options());
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < heads; ++i) {
      const Tensor a =
          masked_softmax(torch::matmul(cols(Q[b], i * d, d), cols(K[b], i * d, d).t()) / std::sqrt(double(d)), pad, b);
      out.index_put_({b, Slice(), Slice(i * d, (i + 1) * d)}, torch::matmul(a, cols(V[b], i * d, d)));
    }
  return linear(out, p, "out");
}

}  // namespace repro::test
