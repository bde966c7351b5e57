// diff: (A1 - lambda A2) V, lambda = exp(<lq1, lk1>) - exp(<lq2, lk2>) + lambda_init, per-head
// RMSNorm x (1 - lambda_init): against the independent recomputation (float64), and its
// identity with single-map attention at lambda = 0.
#include <cmath>

#include "attention_harness.h"
#include "catch.h"
#include "models/attention/diff.h"
#include "probed.h"

using namespace repro;
using namespace repro::test;
using torch::indexing::Slice;

namespace {

torch::Tensor lambda_of(const Params& p, double lambda_init) {  // ()
  return torch::exp((p.at("lambda_q1") * p.at("lambda_k1")).sum()) -
         torch::exp((p.at("lambda_q2") * p.at("lambda_k2")).sum()) + lambda_init;
}

}  // namespace

TEST_CASE("diff equals an independent recomputation of its formula (float64)", "[model]") {
  const auto x = inputs(), pad = padding();
  torch::Tensor maps, reference_maps;
  SECTION("depth schedule at layer 2 (the default), h = model.heads / 2") {
    const auto m = build(variant_options("diff"), 2);
    const double lambda_init = 0.8 - 0.6 * std::exp(-0.3 * 2);
    const auto p = params_of(m);
    const auto y = forward_probed(m, x, pad, maps);
    CHECK(max_diff(y, differential_reference(x, pad, p, kHeads / 2, lambda_init, lambda_of(p, lambda_init),
                                             torch::Tensor(), &reference_maps)) <= 1e-10);
    CHECK(max_diff(maps, reference_maps) <= 1e-10);
  }
  SECTION("fixed lambda_init 0.5, h = 1") {
    ModelOptions o = variant_options("diff");
    auto& layout = o.attention.settings.as<DiffOptions>().layout;
    layout.lambda_schedule = LambdaSchedule::Fixed;
    layout.lambda_init = 0.5;
    layout.heads = 1;
    const auto m = build(o, 3);
    const auto p = params_of(m);
    CHECK(max_diff(m->forward(x, pad), differential_reference(x, pad, p, 1, 0.5, lambda_of(p, 0.5), torch::Tensor())) <=
          1e-10);
  }
}

TEST_CASE("diff's map rows sum to 1 - lambda", "[model]") {
  const auto x = inputs(), pad = padding();
  torch::Tensor maps;
  auto diff = build(variant_options("diff"));
  forward_probed(diff, x, pad, maps);
  const double lambda = lambda_of(params_of(diff), 0.2).item<double>();  // layer 0: lambda_init = 0.2
  CHECK(max_diff(maps.sum(-1), torch::full_like(maps.sum(-1), 1 - lambda)) <= 1e-12);
}

TEST_CASE("diff with lambda = 0 is single-map attention", "[model]") {
  const auto x = inputs(), pad = padding();
  torch::NoGradGuard no_grad;
  ModelOptions o = variant_options("diff");
  auto& layout = o.attention.settings.as<DiffOptions>().layout;
  layout.lambda_schedule = LambdaSchedule::Fixed;
  layout.lambda_init = 0;
  auto m = build(o);
  auto named = m->named_parameters();
  named["lambda_q2"].copy_(named["lambda_q1"]);
  named["lambda_k2"].copy_(named["lambda_k1"]);
  const auto p = params_of(m);
  torch::Tensor maps, all_maps;
  forward_probed(m, x, pad, maps);
  Params single = {{"qkv.weight", torch::cat({p.at("q.weight"), p.at("k.weight"), p.at("v.weight")})},
                   {"out.weight", torch::eye(kDim, torch::kFloat64)}};
  vanilla_reference(x, pad, single, kHeads, &all_maps);  // 2h = kHeads maps of width d
  CHECK(max_diff(maps, all_maps.index({Slice(), Slice(0, torch::indexing::None, 2)})) <= 1e-12);
}
