// The five attention variants against independent recomputations (float64),
// fused vs explicit paths, finite-difference gradients, identities between
// variants, padding invariance and map row sums.
#include <catch2/catch.hpp>
#include <cmath>

#include "attention_reference.h"
#include "models/attention/common.h"
#include "models/attention/differential.h"
#include "models/attention/registry.h"

using namespace repro;
using torch::indexing::Slice;

namespace {

constexpr int64_t kDim = 16, kHeads = 4;

Config variant_config(const std::vector<std::pair<std::string, std::string>>& settings = {}) {
  Config config = Config::defaults();
  for (const auto& [key, value] : settings) config.set(key, value, "test");
  return config;
}

// A variant in float64 with every parameter drawn away from its (often zero) init.
AttentionPtr build(const std::string& kind, const Config& config, int64_t layer = 0, uint64_t seed = 7) {
  torch::manual_seed(seed);
  AttentionOptions options;
  options.dim = kDim;
  options.heads = kHeads;
  options.layer_index = layer;
  options.config = &config;
  auto module = make_attention(kind, options);
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

const std::vector<std::string> kKinds = {"vanilla", "diff", "dgsa", "plug", "gi"};

}  // namespace

TEST_CASE("every variant equals an independent recomputation of its formula (float64)", "[model]") {
  const auto x = inputs(), pad = padding();
  torch::Tensor maps, reference_maps;
  SECTION("vanilla") {
    const Config c = variant_config();
    const auto m = build("vanilla", c);
    const auto y = m->forward(x, pad, &maps);
    CHECK(max_diff(y, test::vanilla_reference(x, pad, params_of(m), kHeads, &reference_maps)) <= 1e-10);
    CHECK(max_diff(maps, reference_maps) <= 1e-10);
  }
  SECTION("diff, depth schedule at layer 2") {
    const Config c = variant_config();
    const auto m = build("diff", c, 2);
    const double lambda_init = 0.8 - 0.6 * std::exp(-0.3 * 2);
    const auto y = m->forward(x, pad, &maps);
    CHECK(max_diff(y, test::diff_reference(x, pad, params_of(m), kHeads / 2, lambda_init, &reference_maps)) <= 1e-10);
    CHECK(max_diff(maps, reference_maps) <= 1e-10);
  }
  SECTION("dgsa with the residual from Q") {
    const Config c = variant_config({{"model.attention.q_residual", "on"}});
    const auto m = build("dgsa", c);
    const auto y = m->forward(x, pad, &maps);
    CHECK(max_diff(y, test::dgsa_reference(x, pad, params_of(m), kHeads, 0.8, true, &reference_maps)) <= 1e-10);
    CHECK(max_diff(maps, reference_maps) <= 1e-10);
  }
  SECTION("dgsa without the residual, depth schedule, h = 2") {
    const Config c = variant_config({{"model.attention.q_residual", "off"},
                                     {"model.attention.lambda_schedule", "depth"},
                                     {"model.attention.diff_heads", "2"}});
    const auto m = build("dgsa", c, 3);
    const double lambda_init = 0.8 - 0.6 * std::exp(-0.9);
    CHECK(max_diff(m->forward(x, pad, nullptr), test::dgsa_reference(x, pad, params_of(m), 2, lambda_init, false)) <=
          1e-10);
  }
  SECTION("plug") {
    const Config c = variant_config();
    const auto m = build("plug", c);
    const auto y = m->forward(x, pad, &maps);
    CHECK(max_diff(y, test::plug_reference(x, pad, params_of(m), kHeads, &reference_maps)) <= 1e-10);
    CHECK(max_diff(maps, reference_maps) <= 1e-10);
  }
  SECTION("gi") {
    const Config c = variant_config({{"model.attention.inh_p", "0.3"}});
    const auto m = build("gi", c);
    CHECK(max_diff(m->forward(x, pad, nullptr), test::gi_reference(x, pad, params_of(m), kHeads, 0.3)) <= 1e-10);
  }
}

TEST_CASE("fused and explicit paths agree in float32", "[model]") {
  const auto x = inputs().to(torch::kFloat32), pad = padding();
  for (const auto& kind : kKinds) {
    INFO(kind);
    const Config c = variant_config();
    auto m = build(kind, c);
    m->to(torch::kFloat32);
    torch::Tensor maps;
    const auto explicit_out = m->forward(x, pad, &maps);
    const auto fast_out = m->forward(x, pad, nullptr);
    CHECK(max_diff(explicit_out, fast_out) <= 1e-5);
    set_fused_attention_enabled(false);
    CHECK(max_diff(m->forward(x, pad, nullptr), fast_out) <= 1e-5);
    set_fused_attention_enabled(true);
  }
}

TEST_CASE("gradients match central finite differences (float64)", "[model]") {
  const auto pad = padding();
  for (const auto& kind : kKinds) {
    INFO(kind);
    const Config c = variant_config({{"model.attention.q_residual", "on"}});
    auto m = build(kind, c);
    const auto x = inputs().requires_grad_(true);
    torch::manual_seed(5);
    const auto weights = torch::randn({2, 5, kDim}, torch::kFloat64);
    auto loss_of = [&](const torch::Tensor& input) { return (m->forward(input, pad, nullptr) * weights).sum(); };
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

TEST_CASE("identities between variants", "[model]") {
  const auto x = inputs(), pad = padding();
  torch::NoGradGuard no_grad;
  SECTION("dgsa with g = 1 is the excitatory softmax attention") {
    const Config c = variant_config();
    auto m = build("dgsa", c);
    auto p = params_of(m);
    m->named_parameters()["gate.weight"].zero_();
    m->named_parameters()["gate.bias"].fill_(40.0);  // sigmoid(40) = 1 - 4e-18
    torch::Tensor maps, excitatory;
    m->forward(x, pad, &maps);
    // A+ of head i uses query/key heads 2i of width d = D / (2h).
    test::Params single = {{"qkv.weight", torch::cat({p["q.weight"], p["k.weight"], p["v.weight"]})},
                           {"out.weight", torch::eye(kDim, torch::kFloat64)}};
    torch::Tensor all_maps;
    test::vanilla_reference(x, pad, single, 2 * kHeads, &all_maps);  // 2h heads of width d
    excitatory = all_maps.index({Slice(), Slice(0, torch::indexing::None, 2)});
    CHECK(max_diff(maps, excitatory) <= 1e-12);
  }
  SECTION("diff with lambda = 0 is single-map attention") {
    const Config c =
        variant_config({{"model.attention.lambda_schedule", "fixed"}, {"model.attention.lambda_init", "0"}});
    auto m = build("diff", c);
    auto named = m->named_parameters();
    named["lambda_q2"].copy_(named["lambda_q1"]);
    named["lambda_k2"].copy_(named["lambda_k1"]);
    const auto p = params_of(m);
    torch::Tensor maps, all_maps;
    m->forward(x, pad, &maps);
    test::Params single = {{"qkv.weight", torch::cat({p.at("q.weight"), p.at("k.weight"), p.at("v.weight")})},
                           {"out.weight", torch::eye(kDim, torch::kFloat64)}};
    test::vanilla_reference(x, pad, single, kHeads, &all_maps);  // 2h = kHeads maps of width d
    CHECK(max_diff(maps, all_maps.index({Slice(), Slice(0, torch::indexing::None, 2)})) <= 1e-12);
  }
  SECTION("plug with G = 0 is vanilla; gi without inhibition weights is vanilla") {
    for (const std::string kind : {"plug", "gi"}) {
      INFO(kind);
      const Config c = variant_config({{"model.attention.gi_combine", kind == "gi" ? "multiplicative" : "additive"}});
      auto m = build(kind, c);
      auto named = m->named_parameters();
      for (const char* zero : {"gml_out.weight", "gml_out.bias", "q_inhibit.weight", "q_inhibit.bias",
                               "k_inhibit.weight", "k_inhibit.bias"})
        if (named.contains(zero)) named[zero].zero_();
      auto vanilla = build("vanilla", c);
      for (const char* shared : {"qkv.weight", "qkv.bias", "out.weight", "out.bias"})
        vanilla->named_parameters()[shared].copy_(named[shared]);
      CHECK(max_diff(m->forward(x, pad, nullptr), vanilla->forward(x, pad, nullptr)) <= 1e-12);
    }
    const Config additive = variant_config({{"model.attention.gi_combine", "additive"}});
    auto gi = build("gi", additive);
    auto vanilla = build("vanilla", additive);
    for (const char* zero : {"q_inhibit.weight", "q_inhibit.bias", "k_inhibit.weight", "k_inhibit.bias"})
      gi->named_parameters()[zero].zero_();
    for (const char* shared : {"qkv.weight", "qkv.bias", "out.weight", "out.bias"})
      vanilla->named_parameters()[shared].copy_(gi->named_parameters()[shared]);
    CHECK(max_diff(gi->forward(x, pad, nullptr), vanilla->forward(x, pad, nullptr)) <= 1e-12);
  }
}

TEST_CASE("contents of padded positions do not change outputs at real positions", "[model]") {
  const auto x = inputs(), pad = padding();
  auto changed = x.clone();
  changed.index_put_({1, Slice(3, 5)}, 1000.0);
  for (const auto& kind : kKinds) {
    INFO(kind);
    const Config c = variant_config();
    auto m = build(kind, c);
    const auto a = m->forward(x, pad, nullptr), b = m->forward(changed, pad, nullptr);
    CHECK(max_diff(a[0], b[0]) <= 1e-12);
    CHECK(max_diff(a[1].slice(0, 0, 3), b[1].slice(0, 0, 3)) <= 1e-12);
  }
}

TEST_CASE("map rows sum to 1 (vanilla, plug), 1 - lambda (diff) and 2g - 1 (dgsa)", "[model]") {
  const auto x = inputs(), pad = padding();
  torch::Tensor maps;
  for (const std::string kind : {"vanilla", "plug"}) {
    const Config c = variant_config();
    build(kind, c)->forward(x, pad, &maps);
    CHECK(max_diff(maps.sum(-1), torch::ones_like(maps.sum(-1))) <= 1e-12);
  }
  const Config c = variant_config();
  auto diff = build("diff", c);
  diff->forward(x, pad, &maps);
  const auto p = params_of(diff);
  const double lambda = (torch::exp((p.at("lambda_q1") * p.at("lambda_k1")).sum()) -
                         torch::exp((p.at("lambda_q2") * p.at("lambda_k2")).sum()))
                            .item<double>() +
                        0.2;
  CHECK(max_diff(maps.sum(-1), torch::full_like(maps.sum(-1), 1 - lambda)) <= 1e-12);
  auto dgsa = build("dgsa", c);
  dgsa->forward(x, pad, &maps);
  const auto g =
      torch::sigmoid(torch::matmul(x, params_of(dgsa).at("gate.weight").t()) + params_of(dgsa).at("gate.bias"));
  CHECK(max_diff(maps.sum(-1), (2 * g - 1).transpose(1, 2)) <= 1e-12);  // (B, h, N)
}
