// dgsa (M-DGSA): (g A+ - (1 - g) A-) V with a per-token, per-head sigmoid gate, per-head
// RMSNorm x (1 - lambda_init), optional residual from Q: against the independent
// recomputation (float64), its map rows (2g - 1) and its identity at g = 1. The A.5 ablation
// options (a 2-layer gate, a learnable lambda) are in test_ablations.cpp.
#include <cmath>

#include "attention_harness.h"
#include "catch.h"
#include "models/attention/dgsa.h"
#include "probed.h"

using namespace repro;
using namespace repro::test;
using torch::indexing::Slice;

namespace {

torch::Tensor dgsa_reference(const torch::Tensor& x, const torch::Tensor& pad, const Params& p, int64_t h,
                             double lambda_init, bool q_residual, torch::Tensor* maps = nullptr) {
  const torch::Tensor gates = torch::sigmoid(linear(x, p, "gate"));  // (B, N, h)
  torch::Tensor y = differential_reference(x, pad, p, h, lambda_init, torch::Tensor(), gates, maps);
  if (q_residual) y = y + linear(x, p, "q", false);
  return y;
}

}  // namespace

TEST_CASE("dgsa equals an independent recomputation of its formula (float64)", "[model]") {
  const auto x = inputs(), pad = padding();
  torch::Tensor maps, reference_maps;
  SECTION("with the residual from Q, lambda_init fixed at 0.8 (the defaults of a vit)") {
    const auto m = build(variant_options("dgsa"));
    const auto y = forward_probed(m, x, pad, maps);
    CHECK(max_diff(y, dgsa_reference(x, pad, params_of(m), kHeads, 0.8, true, &reference_maps)) <= 1e-10);
    CHECK(max_diff(maps, reference_maps) <= 1e-10);
  }
  SECTION("without the residual, depth schedule, h = 2") {
    ModelOptions o = variant_options("dgsa");
    auto& dgsa = o.attention.settings.as<DgsaOptions>();
    dgsa.q_residual = false;
    dgsa.layout.lambda_schedule = LambdaSchedule::Depth;
    dgsa.layout.heads = 2;
    const auto m = build(o, 3);
    const double lambda_init = 0.8 - 0.6 * std::exp(-0.9);
    CHECK(max_diff(m->forward(x, pad), dgsa_reference(x, pad, params_of(m), 2, lambda_init, false)) <= 1e-10);
  }
}

TEST_CASE("dgsa's map rows sum to 2g - 1", "[model]") {
  const auto x = inputs(), pad = padding();
  torch::Tensor maps;
  auto dgsa = build(variant_options("dgsa"));
  forward_probed(dgsa, x, pad, maps);
  const auto p = params_of(dgsa);
  const auto g = torch::sigmoid(torch::matmul(x, p.at("gate.weight").t()) + p.at("gate.bias"));  // (B, N, h)
  CHECK(max_diff(maps.sum(-1), (2 * g - 1).transpose(1, 2)) <= 1e-12);                           // (B, h, N)
}

TEST_CASE("dgsa with g = 1 is the excitatory softmax attention", "[model]") {
  const auto x = inputs(), pad = padding();
  torch::NoGradGuard no_grad;
  auto m = build(variant_options("dgsa"));
  auto p = params_of(m);
  m->named_parameters()["gate.weight"].zero_();
  m->named_parameters()["gate.bias"].fill_(40.0);  // sigmoid(40) = 1 - 4e-18
  torch::Tensor maps, all_maps;
  forward_probed(m, x, pad, maps);
  // A+ of head i uses query/key heads 2i of width d = D / (2h).
  Params single = {{"qkv.weight", torch::cat({p["q.weight"], p["k.weight"], p["v.weight"]})},
                   {"out.weight", torch::eye(kDim, torch::kFloat64)}};
  vanilla_reference(x, pad, single, 2 * kHeads, &all_maps);  // 2h heads of width d
  CHECK(max_diff(maps, all_maps.index({Slice(), Slice(0, torch::indexing::None, 2)})) <= 1e-12);
}

TEST_CASE("dgsa with the two-layer gate: gradients by finite differences, float32 equal to float64", "[model]") {
  ModelOptions o = variant_options("dgsa");
  o.attention.settings.as<DgsaOptions>().gate_layers = 2;
  check_gradients_by_finite_differences(o);
  check_float32_gradients(o);
}
