// The DGSA paper's A.5 ablation options: a 2-layer gate (model.attention.gate_layers)
// and a learnable lambda_init (model.attention.lambda_schedule: learnable) for dgsa;
// their refusal on other variants; and the grids of experiments/ablations_*.yaml.
#include <map>

#include "catch.h"
#include "cli/common.h"
#include "data/fashion_mnist.h"
#include "data/registry.h"
#include "fixtures.h"
#include "models/attention/dgsa.h"
#include "models/attention/registry.h"
#include "models/model.h"
#include "models/param_count.h"
#include "probed.h"
#include "run/plan.h"
#include "spec/grid.h"
#include "spec/keys.h"
#include "spec/presets.h"
#include "util/error.h"

using namespace repro;
using repro::test::Contains;

namespace {

constexpr int64_t kAblationDim = 16, kAblationHeads = 2, kAblationDepth = 2;

// dgsa of width kAblationDim, kAblationHeads heads, no dropout, lambda fixed at `lambda_init`, the gate as the paper's
// init.
ModelOptions dgsa_options(double lambda_init = 0.8) {
  ModelOptions o;
  o.attention = attention_defaults("dgsa");
  o.dim = kAblationDim;
  o.heads = kAblationHeads;
  o.attn_dropout = o.dropout = 0;
  auto& dgsa = o.attention.settings.as<DgsaOptions>();
  dgsa.layout.lambda_schedule = LambdaSchedule::Fixed;
  dgsa.layout.lambda_init = lambda_init;
  dgsa.q_residual = false;
  return o;
}

DgsaOptions& dgsa_of(ModelOptions& o) { return o.attention.settings.as<DgsaOptions>(); }

AttentionPtr build_ablation(const ModelOptions& o, uint64_t seed = 3) {
  torch::manual_seed(seed);
  auto module = make_attention(o, /*layer_index=*/1);
  module->eval();
  return module;
}

torch::Tensor input(uint64_t seed = 11) {  // (B, N, D) = (2, 5, kAblationDim)
  torch::manual_seed(seed);
  return torch::randn({2, 5, kAblationDim});
}

torch::Tensor parameter(const AttentionPtr& module, const std::string& name) {
  const auto parameters = module->named_parameters();
  const auto* found = parameters.find(name);
  REQUIRE(found != nullptr);
  return *found;  // a handle sharing the module's storage and gradient
}

// A DGViT (dim kAblationDim, kAblationDepth layers, patch 7) on Fashion-MNIST's shape, with `key=value` settings.
int64_t dgvit_params(const std::map<std::string, std::string>& settings) {
  const DatasetInfo info = fashion_mnist_info();
  Config config = Config::defaults();
  config.set("model.preset", "dgvit", "t");
  config.set("model.dim", std::to_string(kAblationDim), "t");
  config.set("model.heads", std::to_string(kAblationHeads), "t");
  config.set("model.depth", std::to_string(kAblationDepth), "t");
  config.set("model.patch", "7", "t");
  for (const auto& [key, value] : settings) config.set(key, value, "t");
  resolve_settings(config, info.traits());
  return count_parameters(*build_model(model_options(config), info)).total;
}

std::string plan_error(const std::string& spec) {
  const test::TempDir dir("ablations_spec");
  const auto path = dir.path() / "spec.yaml";
  test::write_text(path, spec);
  try {
    validate_plan(expand_grid(load_spec(path.string(), {}, ""), dataset_catalog()));
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::vector<PlannedRun> ablation_grid(const std::string& file, const std::string& profile) {
  const std::string path = std::string(REPRO_SOURCE_DIR) + "/experiments/" + file;
  return expand_grid(load_spec(path, {}, profile), dataset_catalog());
}

}  // namespace

TEST_CASE("dgsa gate_layers and learnable lambda: option defaults equal the key table's", "[model]") {
  const DgsaOptions dgsa;
  CHECK(std::to_string(dgsa.gate_layers) == Config::defaults().text("model.attention.gate_layers"));
  CHECK(name_of(LambdaSchedule::Learnable) == std::string("learnable"));
}

TEST_CASE("dgsa gate_layers 2 adds exactly one D x D layer with bias per block", "[model]") {
  const int64_t one = dgvit_params({});
  const int64_t two = dgvit_params({{"model.attention.gate_layers", "2"}});
  CHECK(two - one == kAblationDepth * (kAblationDim * kAblationDim + kAblationDim));
  auto module = build_ablation([] {
    auto o = dgsa_options();
    dgsa_of(o).gate_layers = 2;
    return o;
  }());
  CHECK(parameter(module, "gate_hidden.weight").sizes().vec() == std::vector<int64_t>{kAblationDim, kAblationDim});
  CHECK(parameter(module, "gate.weight").sizes().vec() ==
        std::vector<int64_t>{kAblationHeads, kAblationDim});  // the last layer
}

TEST_CASE("a 2-layer gate with a zero last layer starts at g = sigmoid(bias) like the 1-layer gate", "[model]") {
  auto o = dgsa_options();
  dgsa_of(o).gate_bias_init = 2;
  auto one = build_ablation(o);
  dgsa_of(o).gate_layers = 2;
  auto two = build_ablation(o);  // same seed: q, k, v, out are drawn first, so they equal the 1-layer module's
  torch::NoGradGuard no_grad;
  const auto x = input();
  torch::Tensor maps_one, maps_two;
  const auto y_one = test::forward_probed(one, x, {}, maps_one);
  const auto y_two = test::forward_probed(two, x, {}, maps_two);
  CHECK(torch::allclose(y_one, y_two, 1e-6, 1e-6));
  // Rows of the fused map sum to 2g - 1 everywhere (B, h, N).
  const double want = 2.0 / (1.0 + std::exp(-2.0)) - 1.0;
  CHECK(torch::allclose(maps_two.sum(-1), torch::full({2, kAblationHeads, 5}, want), 1e-5, 1e-5));
}

TEST_CASE("gradients reach both layers of a 2-layer gate", "[model]") {
  auto o = dgsa_options();
  dgsa_of(o).gate_layers = 2;
  dgsa_of(o).gate_weight_std = 0.02;
  auto module = build_ablation(o);
  module->train();
  module->forward(input(), {}).pow(2).sum().backward();
  for (const char* name : {"gate_hidden.weight", "gate_hidden.bias", "gate.weight", "gate.bias"}) {
    const auto grad = parameter(module, name).grad();
    INFO(name);
    REQUIRE(grad.defined());
    CHECK(grad.abs().sum().item<double>() > 0);
  }
}

TEST_CASE("learnable lambda starts as the fixed schedule at the same value and receives a gradient", "[model]") {
  auto fixed = build_ablation(dgsa_options(0.5));
  auto o = dgsa_options(0.5);
  dgsa_of(o).layout.lambda_schedule = LambdaSchedule::Learnable;
  auto learnable = build_ablation(o);
  const auto lambda = parameter(learnable, "lambda");
  CHECK(lambda.dim() == 0);
  CHECK(lambda.item<double>() == Approx(0.5));
  CHECK(learnable->parameters().size() == fixed->parameters().size() + 1);
  const auto x = input();
  const auto y_fixed = fixed->forward(x, {});
  const auto y_learnable = learnable->forward(x, {});
  CHECK(torch::allclose(y_fixed, y_learnable, 1e-6, 1e-6));
  y_learnable.pow(2).sum().backward();
  REQUIRE(lambda.grad().defined());
  CHECK(std::abs(lambda.grad().item<double>()) > 0);
  // One scalar per block in a whole model.
  CHECK(dgvit_params({{"model.attention.lambda_schedule", "learnable"}}) - dgvit_params({}) == kAblationDepth);
}

TEST_CASE("gate_layers and a learnable lambda are refused outside dgsa, naming the key", "[model]") {
  const std::string tiny = "datasets: [fashion_mnist]\nmodel: {dim: 16, depth: 1, heads: 2, patch: 7}\n";
  CHECK_THAT(plan_error(tiny + "models:\n  - name: v\n    model: {attention: {gate_layers: 2}}\n"),
             Contains("spec.yaml:5: model configuration 'v' sets model.attention.gate_layers, which its model does "
                      "not read (only model.attention.kind=dgsa reads it") &&
                 Contains("its attention is vanilla"));  // refused by the key check before the model is built
  CHECK_THAT(
      plan_error(tiny + "models:\n  - name: d\n    model: {attention: {kind: diff, lambda_schedule: learnable}}\n"),
      Contains("model.attention.lambda_schedule=learnable") && Contains("got diff") && Contains("learnable already"));
  const std::string dgsa =
      "datasets: [fashion_mnist]\nmodel: {dim: 16, depth: 1, heads: 2, patch: 7, attention: {kind: "
      "dgsa, ";
  CHECK_THAT(plan_error(dgsa + "gate_layers: 3}}\n"), Contains("model.attention.gate_layers") && Contains("3"));
  CHECK(plan_error(dgsa + "gate_layers: 2, lambda_schedule: learnable}}\n") == "(no error)");
}

TEST_CASE("experiments/ablations_*.yaml expand to the A.5 grid", "[spec]") {
  struct Want {
    std::string file, dataset;
    size_t paper_runs;
  };
  for (const Want& want : {Want{"ablations_vision.yaml", "fashion_mnist", 8 * 4 * 5},
                           Want{"ablations_text.yaml", "newsgroups", 8 * 4 * 5}}) {
    INFO(want.file);
    CHECK(ablation_grid(want.file, "paper").size() == want.paper_runs);
    CHECK(ablation_grid(want.file, "smoke").size() == 8);
    const auto runs = ablation_grid(want.file, "short");
    REQUIRE(runs.size() == 8);
    std::map<std::string, const Config*> rows;
    for (const auto& run : runs) {
      CHECK(run.dataset == want.dataset);
      CHECK(run.seed == 0);
      CHECK(run.config.text("model.attention.kind") == "dgsa");
      rows[run.model_config] = &run.config;
    }
    const auto value = [&](const std::string& row, const std::string& key) {
      REQUIRE(rows.count(row) == 1);
      return rows.at(row)->text(key);
    };
    const std::string schedule = "model.attention.lambda_schedule", init = "model.attention.lambda_init";
    CHECK(value("lambda_init 0.8 fixed (paper)", schedule) == "fixed");
    CHECK(value("lambda_init 0.8 fixed (paper)", init) == "0.8");
    CHECK(value("lambda_init 0.8 fixed (paper)", "model.attention.gate_layers") == "1");
    CHECK(value("lambda_init 0.2 fixed", init) == "0.2");
    CHECK(value("lambda_init 0.5 fixed", init) == "0.5");
    CHECK(value("lambda learnable (from 0.8)", schedule) == "learnable");
    CHECK(value("lambda_init depth schedule", schedule) == "depth");
    CHECK(value("gate 2 layers", "model.attention.gate_layers") == "2");
    CHECK(value("gate bias 2", "model.attention.gate_bias_init") == "2");
    CHECK(value("gate weight std 0.02", "model.attention.gate_weight_std") == "0.02");
    validate_plan(runs);  // every row builds
  }
}
