// gi (gate with inhibition): K' = K * (GELU(S_k - inh_p max S_k) + 1), likewise Q: against the
// independent recomputation (float64), its padding behaviour with the per-token max, and its
// identity with vanilla without inhibition weights (both combine rules).
#include <cmath>
#include <limits>

#include "attention_harness.h"
#include "catch.h"
#include "models/attention/gi.h"

using namespace repro;
using namespace repro::test;
using torch::indexing::Slice;

namespace {

// Multiplicative, max over the whole batch of real tokens (the defaults).
torch::Tensor gi_reference(const torch::Tensor& x, const torch::Tensor& pad, const Params& p, int64_t heads,
                           double inh_p) {
  const int64_t B = x.size(0), N = x.size(1), D = x.size(2), d = D / heads;
  const torch::Tensor qkv = linear(x, p, "qkv");
  auto gated = [&](const torch::Tensor& base, const std::string& side) {
    const auto s = linear(torch::gelu(linear(x, p, side + "_gate")), p, side + "_inhibit");  // (B, N, D)
    double peak = -std::numeric_limits<double>::infinity();
    for (int64_t b = 0; b < B; ++b)
      for (int64_t n = 0; n < N; ++n)
        if (!pad.defined() || !pad[b][n].item<bool>()) peak = std::max(peak, s[b][n].max().item<double>());
    return base * (torch::gelu(s - inh_p * peak) + 1);
  };
  const auto Q = gated(cols(qkv.reshape({B * N, 3 * D}), 0, D).reshape({B, N, D}), "q");
  const auto K = gated(cols(qkv.reshape({B * N, 3 * D}), D, D).reshape({B, N, D}), "k");
  const auto V = cols(qkv.reshape({B * N, 3 * D}), 2 * D, D).reshape({B, N, D});
  torch::Tensor out = torch::zeros({B, N, D}, x.options());
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < heads; ++i) {
      const auto a =
          masked_softmax(torch::matmul(cols(Q[b], i * d, d), cols(K[b], i * d, d).t()) / std::sqrt(double(d)), pad, b);
      out.index_put_({b, Slice(), Slice(i * d, (i + 1) * d)}, torch::matmul(a, cols(V[b], i * d, d)));
    }
  return linear(out, p, "out");
}

}  // namespace

TEST_CASE("gi equals an independent recomputation of its formula (float64)", "[model]") {
  const auto x = inputs(), pad = padding();
  ModelOptions o = variant_options("gi");
  o.attention.settings.as<GiOptions>().inh_p = 0.3;
  const auto m = build(o);
  CHECK(max_diff(m->forward(x, pad), gi_reference(x, pad, params_of(m), kHeads, 0.3)) <= 1e-10);
}

TEST_CASE("gi's per-token threshold is finite on padded tokens and leaves real tokens as without padding", "[model]") {
  // The per-token max is over a token's own features: masking a padded token's features gave it -inf
  // and the padded rows NaN, which mean pooling (0 x NaN) carried into the loss.
  ModelOptions o = variant_options("gi");
  o.attention.settings.as<GiOptions>().max = GiMax::Token;
  const auto m = build(o);
  const auto x = inputs(), pad = padding();
  const auto y = m->forward(x, pad);  // (2, 5, D)
  CHECK(torch::isfinite(y).all().item<bool>());
  // Batch 0 has no padding: its output does not depend on batch 1's padding.
  CHECK(max_diff(y[0], m->forward(x, torch::Tensor())[0]) <= 1e-12);
}

TEST_CASE("gi without inhibition weights is vanilla, multiplicative or additive", "[model]") {
  const auto x = inputs(), pad = padding();
  torch::NoGradGuard no_grad;
  for (const GiCombine combine : {GiCombine::Multiplicative, GiCombine::Additive}) {
    INFO(name_of(combine));
    ModelOptions o = variant_options("gi");
    o.attention.settings.as<GiOptions>().combine = combine;
    auto gi = build(o);
    auto vanilla = build(variant_options("vanilla"));
    for (const char* zero : {"q_inhibit.weight", "q_inhibit.bias", "k_inhibit.weight", "k_inhibit.bias"})
      gi->named_parameters()[zero].zero_();
    for (const char* shared : {"qkv.weight", "qkv.bias", "out.weight", "out.bias"})
      vanilla->named_parameters()[shared].copy_(gi->named_parameters()[shared]);
    CHECK(max_diff(gi->forward(x, pad), vanilla->forward(x, pad)) <= 1e-12);
  }
}

TEST_CASE("gi with the per-token max: float32 gradients equal float64 ones", "[model]") {
  ModelOptions o = variant_options("gi");
  o.attention.settings.as<GiOptions>().max = GiMax::Token;
  check_float32_gradients(o);
}
