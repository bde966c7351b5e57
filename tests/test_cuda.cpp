// CUDA-only tests: the same numerics as on the CPU with bf16 tolerances, a tiny training run whose loss
// falls, the fused AdamW step and its CUDA graphs against the eager step (train/step.h), a capture that fails,
// and the GPU's identity in a run's record. Hidden from plain runs ([.cuda]); the ctest entry `cuda` runs them
// and reports "Skipped" without a CUDA device.
#include <iostream>
#include <thread>

#include "attention_harness.h"
#include "catch.h"
#include "data/batcher.h"
#include "data/fashion_mnist.h"
#include "data/random.h"
#include "fixtures.h"
#include "models/attention/dgsa.h"
#include "models/attention/registry.h"
#include "models/model.h"
#include "probed.h"
#include "record/run_record.h"
#include "run/device.h"
#include "run/runner.h"
#include "spec/config.h"
#include "spec/experiment.h"
#include "step_compare.h"
#include "train/step.h"
#include "util/files.h"

using namespace repro;

namespace {

// False (after printing the line ctest's SKIP_REGULAR_EXPRESSION looks for) without CUDA.
bool have_cuda() {
  if (torch::cuda::is_available()) return true;
  std::cout << "SKIPPED: no CUDA device visible to LibTorch " << TORCH_VERSION << "\n";
  return false;
}

// Width 64, 4 heads, with the residual from Q (dgsa), lambda schedules as "auto" resolves them.
ModelOptions variant_options(const AttentionVariant& variant) {
  ModelOptions options;
  options.attention = attention_defaults(variant);
  options.dim = 64;
  options.heads = 4;
  return options;
}

}  // namespace

TEST_CASE("every variant on CUDA: float64 formula, bf16 fused path within bf16 tolerance", "[.cuda][cuda]") {
  if (!have_cuda()) return;
  const torch::Device cuda(torch::kCUDA, 0);
  for (const auto& entry : attention_table()) {
    INFO(entry.variant->name);
    torch::manual_seed(3);
    auto module = make_attention(variant_options(*entry.variant), 0);
    {
      torch::NoGradGuard no_grad;
      for (auto& p : module->parameters()) p.normal_(0, 0.2);
    }
    module->eval();
    const auto x = torch::randn({2, 33, 64});
    const auto pad = torch::arange(33).ge(30).unsqueeze(0).expand({2, 33}).clone();  // last 3 padded
    pad[0].fill_(false);
    const auto cpu_exact = module->forward(x, pad);  // float32, explicit path on the CPU
    module->to(cuda);
    const auto gpu32 = module->forward(x.to(cuda), pad.to(cuda)).cpu();
    CHECK((gpu32 - cpu_exact).abs().max().item<double>() < 1e-3);  // TF32 may be on: 10-bit mantissa products
    torch::Tensor gpu16;
    {
      AutocastScope scope(cuda, Precision::Bf16);
      gpu16 = module->forward(x.to(cuda), pad.to(cuda)).to(torch::kFloat32).cpu();
    }
    const double relative = ((gpu16 - cpu_exact).norm() / cpu_exact.norm()).item<double>();
    CHECK(relative < 3e-2);
    // Gradients flow through the fused kernels.
    auto input = x.to(cuda).requires_grad_();
    {
      AutocastScope scope(cuda, Precision::Bf16);
      module->forward(input, pad.to(cuda)).to(torch::kFloat32).square().mean().backward();
    }
    CHECK(input.grad().isfinite().all().item<bool>());
    CHECK(input.grad().abs().sum().item<double>() > 0);
  }
}

TEST_CASE("every variant in float64 on CUDA equals its float64 CPU output, maps included", "[.cuda][cuda]") {
  // The CPU float64 outputs equal the independent references of tests/test_attention_<name>.cpp to 1e-10
  // ([model]); here the same weights on the GPU, explicit (maps) and fused paths, must give the same numbers.
  if (!have_cuda()) return;
  const torch::Device cuda(torch::kCUDA, 0);
  for (const auto& kind : test::registry_kinds()) {
    INFO(kind);
    const auto x = test::inputs(), pad = test::padding();
    const auto module = test::build(test::variant_options(kind));
    torch::Tensor cpu_maps, gpu_maps;
    const auto cpu_y = test::forward_probed(module, x, pad, cpu_maps);
    module->to(cuda);
    const auto gpu_y = test::forward_probed(module, x.to(cuda), pad.to(cuda), gpu_maps).cpu();
    const auto gpu_fused = module->forward(x.to(cuda), pad.to(cuda)).cpu();
    CHECK(gpu_y.scalar_type() == torch::kFloat64);
    CHECK(test::max_diff(gpu_y, cpu_y) <= 1e-10);
    CHECK(test::max_diff(gpu_maps.cpu(), cpu_maps) <= 1e-10);
    CHECK(test::max_diff(gpu_fused, cpu_y) <= 1e-10);
  }
}

TEST_CASE("vanilla's independent float64 reference computed on CUDA equals the module on CUDA", "[.cuda][cuda]") {
  if (!have_cuda()) return;
  const torch::Device cuda(torch::kCUDA, 0);
  const auto module = test::build(test::variant_options("vanilla"));
  module->to(cuda);
  const auto x = test::inputs().to(cuda), pad = test::padding().to(cuda);
  torch::Tensor maps, reference_maps;
  const auto y = test::forward_probed(module, x, pad, maps);
  const auto reference = test::vanilla_reference(x, pad, test::params_of(module), test::kHeads, &reference_maps);
  CHECK(reference.device().is_cuda());
  CHECK(test::max_diff(y, reference) <= 1e-10);
  CHECK(test::max_diff(maps, reference_maps) <= 1e-10);
}

TEST_CASE("a tiny ViT trains on CUDA under bf16: the loss falls", "[.cuda][cuda]") {
  if (!have_cuda()) return;
  const torch::Device cuda(torch::kCUDA, 0);
  torch::manual_seed(1);
  ModelOptions model_settings;
  model_settings.dim = 64;
  model_settings.heads = 4;
  model_settings.depth = 2;
  model_settings.patch = 7;
  model_settings.attention = attention_defaults(*dgsa_attention().variant);
  model_settings.ffn.kind = FfnKind::Swiglu;
  TrainOptions train;
  train.clip_norm = 1;
  auto model = build_model(model_settings, fashion_mnist_info());
  model->to(cuda);
  model->train();
  TrainStep step(*model, train, cuda, Schedule::constant(3e-3));
  CHECK(step.precision() == Precision::Bf16);
  // Two classes a model can tell apart: bright vs dark images, resident on the GPU as uint8.
  Split split{
      torch::cat({torch::full({64, 1, 28, 28}, 200, torch::kUInt8), torch::full({64, 1, 28, 28}, 30, torch::kUInt8)}),
      torch::cat({torch::zeros({64}, torch::kInt64), torch::ones({64}, torch::kInt64)})};
  split = resident_split(split, cuda);
  // The default data settings, built as a run builds them (GCC 12's -Wmaybe-uninitialized misfires on a
  // value-initialized DataOptions here, an error under CI's WERROR).
  Config config = Config::defaults();
  config.set("data.val_fraction", "0", "test");
  const auto batcher = make_batcher(fashion_mnist_info(), data_options(config), cuda);
  StepTotals totals(cuda);
  double first = 0, last = 0;
  for (int i = 0; i < 30; ++i) {
    const auto indices = torch::randperm(128, torch::kInt64).slice(0, 0, 32);
    const auto y = split.labels.index_select(0, indices_for(split, indices));
    const double loss = step.run(batcher->inputs(split, indices, true), y, i, 1, totals).loss.item<double>();
    if (i == 0) first = loss;
    last = loss;
  }
  CHECK(last < 0.3 * first);
}

TEST_CASE("a run record on CUDA names the GPU (the driver's name and memory)", "[.cuda][cuda]") {
  if (!have_cuda()) return;
  const nlohmann::json environment = environment_record(torch::Device(torch::kCUDA, 0));
  INFO(environment.dump());
  REQUIRE(environment["gpu"].is_string());
  const std::string gpu = environment["gpu"].get<std::string>();
  CHECK(gpu.find(" MiB") != std::string::npos);
  CHECK(gpu.size() > 8);
}

TEST_CASE("the fused AdamW step on CUDA equals the eager step, and their checkpoints cross", "[.cuda][cuda]") {
  if (!have_cuda()) return;
  REQUIRE(fused_update_built());
  test::TempDir dir("cuda-fused-step");
  test::check_fused_against_eager(torch::Device(torch::kCUDA, 0), dir.path());
}

TEST_CASE("CUDA graph replays equal the eager step: vanilla, diff, dgsa; two shapes in turn; evaluation too",
          "[.cuda][cuda]") {
  if (!have_cuda()) return;
  REQUIRE(cuda_graphs_built());
  const torch::Device cuda(torch::kCUDA, 0);
  const auto batches = test::step_batches(cuda, 8);  // widths 12, 20, 12, ...: eager, eager, captured, ...
  for (const std::string kind : {"vanilla", "diff", "dgsa"}) {
    INFO(kind);
    auto graphed_model = test::step_model(kind, cuda), eager_model = test::step_model(kind, cuda);
    TrainStep graphed(*graphed_model, test::step_options(CudaGraphsChoice::Auto), cuda, Schedule::constant(3e-3));
    TrainStep eager(*eager_model, test::step_options(CudaGraphsChoice::Off), cuda, Schedule::constant(3e-3));
    REQUIRE(graphed.graphs_enabled());
    CHECK_FALSE(eager.graphs_enabled());
    std::vector<double> graphed_losses, eager_losses;
    {
      const auto lane = graphed.lane_scope();
      graphed_losses = test::step_losses(graphed, batches);
    }
    eager_losses = test::step_losses(eager, batches);
    CHECK(graphed.graphs_ran());
    for (size_t i = 0; i < batches.size(); ++i) CHECK(graphed_losses[i] == Approx(eager_losses[i]).epsilon(1e-5));
    CHECK(test::max_parameter_difference(*graphed_model, *eager_model) < 1e-5);
    // The loss changes from step to step: a replay computes afresh, it does not repeat a recorded number.
    CHECK(graphed_losses[6] != graphed_losses[4]);

    // Evaluation: padded, fixed-shape batches replayed as graphs against the eager split_metrics, same weights.
    torch::manual_seed(4);
    Split split{torch::zeros({40, 24}, torch::kInt64), torch::randint(0, 3, {40}, torch::kInt64)};
    for (int64_t i = 0; i < 40; ++i) split.inputs[i].slice(0, 0, 1 + (i * 5) % 24).fill_(1 + i % 40);
    split = resident_split(split, cuda);
    const TextBatcher plain(cuda), bucketed(cuda, graphed.length_buckets(24));
    const EvalBatching batching{8, 96};
    const auto expected = split_metrics(*graphed_model, split, plain, cuda, batching, Precision::Fp32);
    const auto lane = graphed.lane_scope();
    graphed.evaluate(split, bucketed, batching);  // first sight of each shape: eager
    const auto replayed = graphed.evaluate(split, bucketed, batching);
    CHECK(replayed.loss == Approx(expected.loss).epsilon(1e-5));
    CHECK(std::abs(replayed.acc - expected.acc) <= 100.0 / 40 + 1e-9);  // at most one example's tie flips
  }
}

namespace {

// A model whose forward reads a value back to the host: no CUDA graph can hold that.
struct HostReadingModel : ClassifierImpl {
  torch::nn::Linear layer{nullptr};
  HostReadingModel() { layer = register_module("layer", torch::nn::Linear(16, 3)); }
  torch::Tensor forward(const ModelInput& input) override {
    const auto x = input.inputs.to(torch::kFloat32).view({input.inputs.size(0), -1}).slice(1, 0, 16) / 50;
    const double scale = 1.0 + 0.0 * x.sum().item<double>();  // the host read
    return layer->forward(x) * scale;
  }
};

}  // namespace

TEST_CASE("a CUDA graph capture that fails falls back to the eager step: one warning, the same numbers",
          "[.cuda][cuda]") {
  if (!have_cuda()) return;
  REQUIRE(cuda_graphs_built());
  const torch::Device cuda(torch::kCUDA, 0);
  const auto batches = test::step_batches(cuda, 6);
  std::vector<std::pair<Batch, torch::Tensor>> one_shape;
  for (const auto& batch : batches)
    if (batch.first.inputs.size(1) == 20) one_shape.push_back(batch);
  const auto make = [&] {
    torch::manual_seed(8);
    auto model = std::make_shared<HostReadingModel>();
    model->to(cuda);
    return model;
  };
  auto failing_model = make(), eager_model = make();
  TrainStep failing(*failing_model, test::step_options(CudaGraphsChoice::Auto), cuda, Schedule::constant(3e-3));
  TrainStep eager(*eager_model, test::step_options(CudaGraphsChoice::Off), cuda, Schedule::constant(3e-3));
  std::vector<double> failing_losses;
  {
    const auto lane = failing.lane_scope();
    failing_losses = test::step_losses(failing, one_shape);  // the second step's capture fails
  }
  const auto eager_losses = test::step_losses(eager, one_shape);
  CHECK_FALSE(failing.graphs_ran());
  for (size_t i = 0; i < eager_losses.size(); ++i) CHECK(failing_losses[i] == Approx(eager_losses[i]).epsilon(1e-6));
  CHECK(test::max_parameter_difference(*failing_model, *eager_model) < 1e-6);
  // The default generator left its capture state: dropout draws go on, two draws differ.
  const auto ones = torch::ones({4096}, torch::TensorOptions().device(cuda));
  const auto a = torch::dropout(ones, 0.5, true), b = torch::dropout(ones, 0.5, true);
  CHECK_FALSE(a.equal(b));
}

TEST_CASE("a run on CUDA records the GPU's identity, bf16 and that its step ran as CUDA graphs", "[.cuda][cuda]") {
  if (!have_cuda()) return;
  const DeviceIdentity identity = device_identity(torch::Device(torch::kCUDA, 0));
  REQUIRE(identity.gpu_name.has_value());
  CHECK(identity.gpu_name->size() > 4);
  REQUIRE(identity.compute_capability.has_value());
  CHECK(identity.compute_capability->find('.') != std::string::npos);
  REQUIRE(identity.cuda_runtime.has_value());
  CHECK(identity.driver_version.has_value());
  INFO(*identity.gpu_name + ", driver " + identity.driver_version.value_or("?") + ", CUDA " + *identity.cuda_runtime +
       ", cc " + *identity.compute_capability);

  test::TempDir dir("cuda-record");
  test::write_fashion_fixture(dir.path() / "data", 96, 32);
  test::write_text(dir.path() / "tiny.yaml", R"(experiment: tiny
datasets: [fashion_mnist]
seeds: [1]
model: {dim: 16, depth: 1, heads: 2, patch: 7, dropout: 0.1, ffn: {ratio: 2}}
data: {val_fraction: 0.25, verify: off}
train: {epochs: 2, batch_size: 16, lr: 3e-3, clip_norm: 1.0}
)");
  const Experiment experiment = load_experiment((dir.path() / "tiny.yaml").string());
  RunnerOptions options = test::runner_options(dir, "out");
  options.device = DeviceChoice::Cuda;
  REQUIRE(run_experiment(experiment, options) == 0);
  const RunRecord record = read_run_record(dir.path() / "out/tiny/fashion_mnist/model/seed_1/summary.json");
  CHECK(record.device.gpu_name == identity.gpu_name);
  CHECK(record.device.compute_capability == identity.compute_capability);
  CHECK(record.device.precision == std::optional<std::string>("bf16"));
  CHECK(record.device.cuda_graphs == std::optional<bool>(true));
  REQUIRE(record.selected.has_value());
  const auto accuracy = record.selected->metrics.at(Metric::TestAcc);
  REQUIRE(accuracy.has_value());
  CHECK(*accuracy >= 0);
}

namespace {

// K steps of one text model each, with dropout after projections, in the feed-forward block and on the maps, each
// drawing from its own generators (data/random.h) seeded 100 + k: run k's losses over `batches` and its model.
struct LaneRun {
  std::vector<double> losses;
  ClassifierPtr model;
};

ClassifierPtr dropout_model(torch::Device device) {
  ModelOptions o = test::step_text_model("dgsa");
  o.dropout = o.attn_dropout = 0.1;
  torch::manual_seed(5);
  auto model = build_model(o, test::tiny_text_info());
  model->to(device);
  model->train();
  return model;
}

void train_lane(LaneRun& run, int k, torch::Device device,
                const std::vector<std::pair<Batch, torch::Tensor>>& batches) {
  RunGenerators generators(device);
  generators.seed(100 + static_cast<uint64_t>(k));
  TrainStep step(*run.model, test::step_options(CudaGraphsChoice::Auto), device, Schedule::constant(3e-3));
  const auto lane = step.lane_scope();
  const RunRandomScope random(generators);
  run.losses = test::step_losses(step, batches);
  CHECK(step.graphs_ran());
}

}  // namespace

TEST_CASE("K lanes on K threads with CUDA graphs equal each run alone, dropout included (issue 56)", "[.cuda][cuda]") {
  if (!have_cuda()) return;
  REQUIRE(cuda_graphs_built());
  const torch::Device cuda(torch::kCUDA, 0);
  const auto batches = test::step_batches(cuda, 10);
  constexpr int kLanes = 4;
  std::vector<LaneRun> alone(kLanes), lanes(kLanes);
  for (int k = 0; k < kLanes; ++k) {  // one after another on this thread
    alone[k].model = dropout_model(cuda);
    train_lane(alone[k], k, cuda, batches);
  }
  for (auto& run : lanes) run.model = dropout_model(cuda);  // built here: initialisers draw from the default generator
  std::vector<std::thread> threads;
  for (int k = 0; k < kLanes; ++k) threads.emplace_back([&, k] { train_lane(lanes[k], k, cuda, batches); });
  for (auto& thread : threads) thread.join();
  torch::cuda::synchronize();
  for (int k = 0; k < kLanes; ++k) {
    INFO("lane " << k);
    for (size_t i = 0; i < batches.size(); ++i) CHECK(lanes[k].losses[i] == Approx(alone[k].losses[i]).epsilon(1e-5));
    CHECK(test::max_parameter_difference(*lanes[k].model, *alone[k].model) < 1e-5);
  }
  // The lanes drew different masks (seeds 100 and 101): the comparison above could fail.
  CHECK(alone[0].losses[4] != alone[1].losses[4]);
}

TEST_CASE("repro run --lanes 3 on CUDA gives each run the numbers it has alone (issue 56)", "[.cuda][cuda]") {
  if (!have_cuda()) return;
  test::TempDir dir("cuda-lanes");
  test::write_fashion_fixture(dir.path() / "data", 400, 100);
  test::write_text(dir.path() / "lanes.yaml", R"(experiment: lanes
datasets: [fashion_mnist]
seeds: [0, 1, 2]
model: {dim: 32, depth: 2, heads: 2, patch: 7, dropout: 0.1, attn_dropout: 0.1, ffn: {ratio: 2}}
data: {val_fraction: 0.125, verify: off, augment: crop_flip}
train: {epochs: 2, batch_size: 32, lr: 3e-3, label_smoothing: 0.1, precision: fp32}
)");
  const Experiment experiment = load_experiment((dir.path() / "lanes.yaml").string());
  RunnerOptions alone = test::runner_options(dir, "alone");
  alone.device = DeviceChoice::Cuda;
  REQUIRE(run_experiment(experiment, alone) == 0);
  RunnerOptions lanes = test::runner_options(dir, "lanes");
  lanes.device = DeviceChoice::Cuda;
  lanes.parallel.lanes = 3;
  REQUIRE(run_experiment(experiment, lanes) == 0);
  for (const char* seed : {"seed_0", "seed_1", "seed_2"}) {
    INFO(seed);
    const RunRecord a = read_run_record(dir.path() / "alone/lanes/fashion_mnist/model" / seed / "summary.json");
    const RunRecord l = read_run_record(dir.path() / "lanes/lanes/fashion_mnist/model" / seed / "summary.json");
    REQUIRE(a.final.has_value());
    REQUIRE(l.final.has_value());
    const auto loss_alone = a.final->metrics.at(Metric::TestLoss), loss_lanes = l.final->metrics.at(Metric::TestLoss);
    REQUIRE(loss_alone.has_value());
    REQUIRE(loss_lanes.has_value());
    CHECK(*loss_lanes == Approx(*loss_alone).epsilon(1e-4));
    CHECK(l.device.cuda_graphs == std::optional<bool>(true));
  }
}
