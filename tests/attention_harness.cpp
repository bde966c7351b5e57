#include "attention_harness.h"

#include <map>

#include "catch.h"
#include "fixtures.h"
#include "models/attention/registry.h"

namespace repro::test {

ModelOptions variant_options(const std::string& kind) {
  ModelOptions options;
  options.attention = attention_defaults(kind);
  options.dim = kDim;
  options.heads = kHeads;
  options.attn_dropout = options.dropout = 0;
  return options;
}

std::vector<std::string> registry_kinds() {
  std::vector<std::string> kinds;
  for (const auto& entry : attention_table()) kinds.push_back(entry.variant->name);
  return kinds;
}

AttentionPtr build(const ModelOptions& options, int64_t layer, uint64_t seed) {
  torch::manual_seed(seed);
  auto module = make_attention(options, layer);
  module->to(torch::kFloat64);
  torch::NoGradGuard no_grad;
  for (auto& p : module->parameters()) p.normal_(0, 0.5);
  module->eval();
  return module;
}

Params params_of(const AttentionPtr& module) {
  Params params;
  for (const auto& item : module->named_parameters()) params[item.key()] = item.value().detach();
  return params;
}

torch::Tensor inputs() {
  torch::manual_seed(11);
  return torch::randn({2, 5, kDim}, torch::kFloat64);
}

torch::Tensor padding() { return torch::tensor({0, 0, 0, 0, 0, 0, 0, 0, 1, 1}, torch::kBool).view({2, 5}); }

double max_diff(const torch::Tensor& a, const torch::Tensor& b) { return (a - b).abs().max().item<double>(); }

void check_gradients_by_finite_differences(const ModelOptions& options) {
  const auto pad = padding();
  auto m = build(options);
  const auto x = inputs().requires_grad_(true);
  torch::manual_seed(5);
  const auto weights = torch::randn({2, 5, kDim}, torch::kFloat64);
  auto loss_of = [&](const torch::Tensor& input) { return (m->forward(input, pad) * weights).sum(); };
  loss_of(x).backward();
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

void check_float32_gradients(const ModelOptions& options) {
  ThreadCount one_thread(1);  // as `--threads 1` runs
  const auto pad = padding();
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

}  // namespace repro::test
