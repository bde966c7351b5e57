// The five attention variants against independent recomputations (float64),
// fused vs explicit paths, finite-difference gradients, identities between
// variants, float32 gradients against float64, padding invariance and map row sums.
#include "catch.h"
#include <cmath>
#include <map>

#include "attention_reference.h"
#include "fixtures.h"
#include "probed.h"
#include "models/attention/common.h"
#include "models/attention/diff_core.h"
#include "models/attention/registry.h"

using namespace repro;
using torch::indexing::Slice;

namespace {

constexpr int64_t kDim = 16, kHeads = 4;

// Options of width kDim and kHeads heads, no dropout; diff's and dgsa's lambda
// schedules as "auto" resolves them (depth, fixed); no residual from Q.
AttentionOptions variant_options(AttentionKind kind) {
  AttentionOptions options;
  options.kind = kind;
  options.dim = kDim;
  options.heads = kHeads;
  options.attn_dropout = options.proj_dropout = 0;
  options.diff.lambda_schedule = kind == AttentionKind::Dgsa ? LambdaSchedule::Fixed : LambdaSchedule::Depth;
  options.dgsa.q_residual = false;
  return options;
}

// A variant in float64 with every parameter drawn away from its (often zero) init.
AttentionPtr build(const AttentionOptions& options, int64_t layer = 0, uint64_t seed = 7) {
  torch::manual_seed(seed);
  auto module = make_attention(options, layer);
  module->to(torch::kFloat64);
  torch::NoGradGuard no_grad;
  for (auto& p : module->parameters()) p.normal_(0, 0.5);
  module->eval();
  return module;
}

test::Params params_of(const AttentionPtr& module) {
  test::Params params;
  for (const auto& item : module->named_parameters()) params[item.key()] = item.value().detach();
  return params;
}

torch::Tensor inputs() {
  torch::manual_seed(11);
  return torch::randn({2, 5, kDim}, torch::kFloat64);
}

torch::Tensor padding() {  // batch 0: no padding; batch 1: last two tokens padded
  return torch::tensor({0, 0, 0, 0, 0, 0, 0, 0, 1, 1}, torch::kBool).view({2, 5});
}

double max_diff(const torch::Tensor& a, const torch::Tensor& b) { return (a - b).abs().max().item<double>(); }

// Every kind of the registry: a new variant is picked up by the per-kind tests below without being listed here.
const std::vector<AttentionKind> kKinds = [] {
  std::vector<AttentionKind> kinds;
  for (const auto& entry : attention_table()) kinds.push_back(entry.kind);
  return kinds;
}();

}  // namespace

TEST_CASE("every variant equals an independent recomputation of its formula (float64)", "[model]") {
  const auto x = inputs(), pad = padding();
  torch::Tensor maps, reference_maps;
  SECTION("vanilla") {
    const auto m = build(variant_options(AttentionKind::Vanilla));
    const auto y = test::forward_probed(m, x, pad, maps);
    CHECK(max_diff(y, test::vanilla_reference(x, pad, params_of(m), kHeads, &reference_maps)) <= 1e-10);
    CHECK(max_diff(maps, reference_maps) <= 1e-10);
  }
  SECTION("diff, depth schedule at layer 2") {
    const auto m = build(variant_options(AttentionKind::Diff), 2);
    const double lambda_init = 0.8 - 0.6 * std::exp(-0.3 * 2);
    const auto y = test::forward_probed(m, x, pad, maps);
    CHECK(max_diff(y, test::diff_reference(x, pad, params_of(m), kHeads / 2, lambda_init, &reference_maps)) <= 1e-10);
    CHECK(max_diff(maps, reference_maps) <= 1e-10);
  }
  SECTION("dgsa with the residual from Q") {
    AttentionOptions o = variant_options(AttentionKind::Dgsa);
    o.dgsa.q_residual = true;
    const auto m = build(o);
    const auto y = test::forward_probed(m, x, pad, maps);
    CHECK(max_diff(y, test::dgsa_reference(x, pad, params_of(m), kHeads, 0.8, true, &reference_maps)) <= 1e-10);
    CHECK(max_diff(maps, reference_maps) <= 1e-10);
  }
  SECTION("dgsa without the residual, depth schedule, h = 2") {
    AttentionOptions o = variant_options(AttentionKind::Dgsa);
    o.dgsa.q_residual = false;
    o.diff.lambda_schedule = LambdaSchedule::Depth;
    o.diff.heads = 2;
    const auto m = build(o, 3);
    const double lambda_init = 0.8 - 0.6 * std::exp(-0.9);
    CHECK(max_diff(m->forward(x, pad), test::dgsa_reference(x, pad, params_of(m), 2, lambda_init, false)) <=
          1e-10);
  }
  SECTION("plug") {
    const auto m = build(variant_options(AttentionKind::Plug));
    const auto y = test::forward_probed(m, x, pad, maps);
    CHECK(max_diff(y, test::plug_reference(x, pad, params_of(m), kHeads, &reference_maps)) <= 1e-10);
    CHECK(max_diff(maps, reference_maps) <= 1e-10);
  }
  SECTION("gi") {
    AttentionOptions o = variant_options(AttentionKind::Gi);
    o.gi.inh_p = 0.3;
    const auto m = build(o);
    CHECK(max_diff(m->forward(x, pad), test::gi_reference(x, pad, params_of(m), kHeads, 0.3)) <= 1e-10);
  }
}

TEST_CASE("gi's per-token threshold is finite on padded tokens and leaves real tokens as without padding", "[model]") {
  // The per-token max is over a token's own features: masking a padded token's features gave it -inf
  // and the padded rows NaN, which mean pooling (0 x NaN) carried into the loss.
  AttentionOptions o = variant_options(AttentionKind::Gi);
  o.gi.max = GiMax::Token;
  const auto m = build(o);
  const auto x = inputs(), pad = padding();
  const auto y = m->forward(x, pad);  // (2, 5, D)
  CHECK(torch::isfinite(y).all().item<bool>());
  // Batch 0 has no padding: its output does not depend on batch 1's padding.
  CHECK(max_diff(y[0], m->forward(x, torch::Tensor())[0]) <= 1e-12);
}

TEST_CASE("with and without maps every variant gives the same output (float32)", "[model]") {
  // diff and dgsa combine the maps first with maps, the two outputs first without.
  const auto x = inputs().to(torch::kFloat32), pad = padding();
  for (const auto& kind : kKinds) {
    INFO(name_of(kind));
    auto m = build(variant_options(kind));
    m->to(torch::kFloat32);
    torch::Tensor maps;
    CHECK(max_diff(test::forward_probed(m, x, pad, maps), m->forward(x, pad)) <= 1e-5);
  }
}

TEST_CASE("fused and explicit paths agree in float32, with and without a padding mask", "[model]") {
#if TORCH_VERSION_MAJOR >= 2
  const auto x = inputs().to(torch::kFloat32);
  // No mask (images) is the case LibTorch 2.6 refused when the fused path passed an undefined tensor.
  for (const auto& pad : {padding(), torch::Tensor()}) {
    for (const auto& kind : kKinds) {
      INFO(name_of(kind) << (pad.defined() ? " with padding" : " without padding"));
      auto m = build(variant_options(kind));
      m->to(torch::kFloat32);
      const auto fused_out = m->forward(x, pad);
      set_fused_attention_enabled(false);
      const auto explicit_out = m->forward(x, pad);
      set_fused_attention_enabled(true);
      CHECK(max_diff(explicit_out, fused_out) <= 1e-5);
    }
  }
#else
  WARN("SKIPPED: LibTorch " TORCH_VERSION " has no fused scaled_dot_product_attention (2.0+); nothing to compare");
#endif
}

TEST_CASE("gradients match central finite differences (float64)", "[model]") {
  const auto pad = padding();
  for (const auto& kind : kKinds) {
    INFO(name_of(kind));
    AttentionOptions o = variant_options(kind);
    o.dgsa.q_residual = true;
    auto m = build(o);
    const auto x = inputs().requires_grad_(true);
    torch::manual_seed(5);
    const auto weights = torch::randn({2, 5, kDim}, torch::kFloat64);
    auto loss_of = [&](const torch::Tensor& input) { return (m->forward(input, pad) * weights).sum(); };
    const auto loss = loss_of(x);
    loss.backward();
    const auto grad_x = x.grad().clone();
    const double eps = 1e-6;
    torch::NoGradGuard no_grad;
    for (const int64_t flat : {0, 7, 23, 81, 100, 150}) {  // entries of x, some at padded tokens
      auto plus = x.detach().clone(), minus = x.detach().clone();
      plus.view({-1})[flat] += eps;
      minus.view({-1})[flat] -= eps;
      const double numeric = (loss_of(plus) - loss_of(minus)).item<double>() / (2 * eps);
      CHECK(grad_x.view({-1})[flat].item<double>() == Approx(numeric).margin(1e-6).epsilon(1e-5));
    }
    for (auto& item : m->named_parameters()) {  // the first entry of every parameter
      INFO(item.key());
      auto& p = item.value();
      const double analytic = p.grad().view({-1})[0].item<double>();
      const double saved = p.view({-1})[0].item<double>();
      p.view({-1})[0] = saved + eps;
      const double up = loss_of(x.detach()).item<double>();
      p.view({-1})[0] = saved - eps;
      const double down = loss_of(x.detach()).item<double>();
      p.view({-1})[0] = saved;
      CHECK(analytic == Approx((up - down) / (2 * eps)).margin(1e-6).epsilon(1e-5));
    }
  }
}

TEST_CASE("float32 gradients equal the float64 gradients of the same weights", "[model]") {
  // Catches float32-only kernel faults that the float64 tests above cannot see: LibTorch 1.13's
  // CPU GELU backward was wrong in float32 for gi's key side (a transposed view's gradient), which
  // made gi's training diverge or differ from run to run. One thread, as `--threads 1` runs.
  test::ThreadCount one_thread(1);
  const auto pad = padding();
  std::vector<std::pair<std::string, AttentionOptions>> cases;
  for (const auto& kind : kKinds) cases.emplace_back(name_of(kind), variant_options(kind));
  cases.emplace_back("gi, per-token max", variant_options(AttentionKind::Gi));
  cases.back().second.gi.max = GiMax::Token;
  cases.emplace_back("dgsa, two-layer gate", variant_options(AttentionKind::Dgsa));
  cases.back().second.dgsa.gate_layers = 2;
  cases.emplace_back("plug, D-shaped GML", variant_options(AttentionKind::Plug));
  cases.back().second.plug.gml = PlugGml::D;
  for (const auto& [label, options] : cases) {
    INFO(label);
    std::map<std::string, torch::Tensor> grads[2];
    for (const auto dtype : {torch::kFloat64, torch::kFloat32}) {
      auto m = build(options);  // float64 weights, the same for both passes
      m->to(dtype);
      const auto x = inputs().to(dtype).requires_grad_(true);
      torch::manual_seed(5);
      const auto weights = torch::randn({2, 5, kDim}, torch::kFloat64).to(dtype);
      (m->forward(x, pad) * weights).sum().backward();
      auto& out = grads[dtype == torch::kFloat32];
      out["x"] = x.grad().to(torch::kFloat64);
      for (auto& item : m->named_parameters()) out[item.key()] = item.value().grad().to(torch::kFloat64);
    }
    for (const auto& [name, reference] : grads[0]) {
      INFO(name);
      const double scale = std::max(1.0, reference.abs().max().item<double>());
      CHECK((grads[1].at(name) - reference).abs().max().item<double>() <= 1e-4 * scale);
    }
  }
}

TEST_CASE("identities between variants", "[model]") {
  const auto x = inputs(), pad = padding();
  torch::NoGradGuard no_grad;
  SECTION("dgsa with g = 1 is the excitatory softmax attention") {
    auto m = build(variant_options(AttentionKind::Dgsa));
    auto p = params_of(m);
    m->named_parameters()["gate.weight"].zero_();
    m->named_parameters()["gate.bias"].fill_(40.0);  // sigmoid(40) = 1 - 4e-18
    torch::Tensor maps, excitatory;
    test::forward_probed(m, x, pad, maps);
    // A+ of head i uses query/key heads 2i of width d = D / (2h).
    test::Params single = {{"qkv.weight", torch::cat({p["q.weight"], p["k.weight"], p["v.weight"]})},
                           {"out.weight", torch::eye(kDim, torch::kFloat64)}};
    torch::Tensor all_maps;
    test::vanilla_reference(x, pad, single, 2 * kHeads, &all_maps);  // 2h heads of width d
    excitatory = all_maps.index({Slice(), Slice(0, torch::indexing::None, 2)});
    CHECK(max_diff(maps, excitatory) <= 1e-12);
  }
  SECTION("diff with lambda = 0 is single-map attention") {
    AttentionOptions o = variant_options(AttentionKind::Diff);
    o.diff.lambda_schedule = LambdaSchedule::Fixed;
    o.diff.lambda_init = 0;
    auto m = build(o);
    auto named = m->named_parameters();
    named["lambda_q2"].copy_(named["lambda_q1"]);
    named["lambda_k2"].copy_(named["lambda_k1"]);
    const auto p = params_of(m);
    torch::Tensor maps, all_maps;
    test::forward_probed(m, x, pad, maps);
    test::Params single = {{"qkv.weight", torch::cat({p.at("q.weight"), p.at("k.weight"), p.at("v.weight")})},
                           {"out.weight", torch::eye(kDim, torch::kFloat64)}};
    test::vanilla_reference(x, pad, single, kHeads, &all_maps);  // 2h = kHeads maps of width d
    CHECK(max_diff(maps, all_maps.index({Slice(), Slice(0, torch::indexing::None, 2)})) <= 1e-12);
  }
  SECTION("plug with G = 0 is vanilla; gi without inhibition weights is vanilla") {
    for (const AttentionKind kind : {AttentionKind::Plug, AttentionKind::Gi}) {
      INFO(name_of(kind));
      AttentionOptions o = variant_options(kind);
      o.gi.combine = kind == AttentionKind::Gi ? GiCombine::Multiplicative : GiCombine::Additive;
      auto m = build(o);
      auto named = m->named_parameters();
      for (const char* zero : {"gml_out.weight", "gml_out.bias", "q_inhibit.weight", "q_inhibit.bias",
                               "k_inhibit.weight", "k_inhibit.bias"})
        if (named.contains(zero)) named[zero].zero_();
      auto vanilla = build(variant_options(AttentionKind::Vanilla));
      for (const char* shared : {"qkv.weight", "qkv.bias", "out.weight", "out.bias"})
        vanilla->named_parameters()[shared].copy_(named[shared]);
      CHECK(max_diff(m->forward(x, pad), vanilla->forward(x, pad)) <= 1e-12);
    }
    AttentionOptions additive = variant_options(AttentionKind::Gi);
    additive.gi.combine = GiCombine::Additive;
    auto gi = build(additive);
    auto vanilla = build(variant_options(AttentionKind::Vanilla));
    for (const char* zero : {"q_inhibit.weight", "q_inhibit.bias", "k_inhibit.weight", "k_inhibit.bias"})
      gi->named_parameters()[zero].zero_();
    for (const char* shared : {"qkv.weight", "qkv.bias", "out.weight", "out.bias"})
      vanilla->named_parameters()[shared].copy_(gi->named_parameters()[shared]);
    CHECK(max_diff(gi->forward(x, pad), vanilla->forward(x, pad)) <= 1e-12);
  }
}

TEST_CASE("contents of padded positions do not change outputs at real positions", "[model]") {
  const auto x = inputs(), pad = padding();
  auto changed = x.clone();
  changed.index_put_({1, Slice(3, 5)}, 1000.0);
  for (const auto& kind : kKinds) {
    INFO(name_of(kind));
    auto m = build(variant_options(kind));
    const auto a = m->forward(x, pad), b = m->forward(changed, pad);
    CHECK(max_diff(a[0], b[0]) <= 1e-12);
    CHECK(max_diff(a[1].slice(0, 0, 3), b[1].slice(0, 0, 3)) <= 1e-12);
  }
}

TEST_CASE("map rows sum to 1 (vanilla, plug), 1 - lambda (diff) and 2g - 1 (dgsa)", "[model]") {
  const auto x = inputs(), pad = padding();
  torch::Tensor maps;
  for (const AttentionKind kind : {AttentionKind::Vanilla, AttentionKind::Plug}) {
    test::forward_probed(build(variant_options(kind)), x, pad, maps);
    CHECK(max_diff(maps.sum(-1), torch::ones_like(maps.sum(-1))) <= 1e-12);
  }
  auto diff = build(variant_options(AttentionKind::Diff));
  test::forward_probed(diff, x, pad, maps);
  const auto p = params_of(diff);
  const double lambda = (torch::exp((p.at("lambda_q1") * p.at("lambda_k1")).sum()) -
                         torch::exp((p.at("lambda_q2") * p.at("lambda_k2")).sum()))
                            .item<double>() +
                        0.2;
  CHECK(max_diff(maps.sum(-1), torch::full_like(maps.sum(-1), 1 - lambda)) <= 1e-12);
  auto dgsa = build(variant_options(AttentionKind::Dgsa));
  test::forward_probed(dgsa, x, pad, maps);
  const auto g =
      torch::sigmoid(torch::matmul(x, params_of(dgsa).at("gate.weight").t()) + params_of(dgsa).at("gate.bias"));
  CHECK(max_diff(maps.sum(-1), (2 * g - 1).transpose(1, 2)) <= 1e-12);  // (B, h, N)
}
