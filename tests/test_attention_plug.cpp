// plug (PLuG): softmax(A * (1 + G)) with G from a head-shared gating path: against the
// independent recomputation (float64) at the defaults (GML E, tanh, pre-softmax, residual),
// its map rows, and its identity with vanilla at G = 0.
#include <cmath>

#include "attention_harness.h"
#include "catch.h"
#include "models/attention/plug.h"
#include "probed.h"

using namespace repro;
using namespace repro::test;
using torch::indexing::Slice;

namespace {

// GML variant E with tanh, pre-softmax, residual, head-shared (the defaults).
torch::Tensor plug_reference(const torch::Tensor& x, const torch::Tensor& pad, const Params& p, int64_t heads,
                             torch::Tensor* maps) {
  const int64_t B = x.size(0), N = x.size(1), D = x.size(2), d = D / heads;
  const torch::Tensor qkv = linear(x, p, "qkv"), gate_qk = linear(x, p, "gate_qk");
  const int64_t dg = gate_qk.size(2) / 2;
  const double w0 = p.at("gml_out.weight")[0][0].item<double>(), w1 = p.at("gml_out.weight")[1][0].item<double>();
  const double b0 = p.at("gml_out.bias")[0].item<double>(), b1 = p.at("gml_out.bias")[1].item<double>();
  torch::Tensor out = torch::zeros({B, N, D}, x.options());
  if (maps) *maps = torch::zeros({B, heads, N, N}, x.options());
  for (int64_t b = 0; b < B; ++b) {
    const auto r = torch::matmul(cols(gate_qk[b], 0, dg), cols(gate_qk[b], dg, dg).t()) / std::sqrt(double(dg));
    const auto g = torch::tanh((w0 * r + b0) * (w1 * r + b1));  // (N, N), shared by the heads
    for (int64_t i = 0; i < heads; ++i) {
      const auto q = cols(qkv[b], i * d, d), k = cols(qkv[b], D + i * d, d), v = cols(qkv[b], 2 * D + i * d, d);
      const auto a = masked_softmax(torch::matmul(q, k.t()) / std::sqrt(double(d)) * (1 + g), pad, b);
      if (maps) maps->index_put_({b, i}, a);
      out.index_put_({b, Slice(), Slice(i * d, (i + 1) * d)}, torch::matmul(a, v));
    }
  }
  return linear(out, p, "out");
}

}  // namespace

TEST_CASE("plug equals an independent recomputation of its formula (float64)", "[model]") {
  const auto x = inputs(), pad = padding();
  torch::Tensor maps, reference_maps;
  const auto m = build(variant_options("plug"));
  const auto y = forward_probed(m, x, pad, maps);
  CHECK(max_diff(y, plug_reference(x, pad, params_of(m), kHeads, &reference_maps)) <= 1e-10);
  CHECK(max_diff(maps, reference_maps) <= 1e-10);
  CHECK(max_diff(maps.sum(-1), torch::ones_like(maps.sum(-1))) <= 1e-12);  // pre-softmax gating: rows sum to 1
}

TEST_CASE("plug with G = 0 is vanilla", "[model]") {
  const auto x = inputs(), pad = padding();
  torch::NoGradGuard no_grad;
  for (const PlugGml gml : {PlugGml::E, PlugGml::B, PlugGml::C, PlugGml::D}) {
    INFO(name_of(gml));
    ModelOptions o = variant_options("plug");
    o.attention.settings.as<PlugOptions>().gml = gml;
    auto m = build(o);
    auto named = m->named_parameters();
    for (const char* zero : {"gml_out.weight", "gml_out.bias"}) named[zero].zero_();
    auto vanilla = build(variant_options("vanilla"));
    for (const char* shared : {"qkv.weight", "qkv.bias", "out.weight", "out.bias"})
      vanilla->named_parameters()[shared].copy_(named[shared]);
    CHECK(max_diff(m->forward(x, pad), vanilla->forward(x, pad)) <= 1e-12);
  }
}

TEST_CASE("plug with the D-shaped GML: float32 gradients equal float64 ones", "[model]") {
  ModelOptions o = variant_options("plug");
  o.attention.settings.as<PlugOptions>().gml = PlugGml::D;
  check_float32_gradients(o);
}
