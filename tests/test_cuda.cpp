// CUDA-only tests: the same numerics as on the CPU with bf16 tolerances, and a
// tiny training run whose loss falls. Hidden from plain runs ([.cuda]); the ctest
// entry `cuda` runs them and reports "Skipped" without a CUDA device.
#include "catch.h"
#include <iostream>

#include "attention_harness.h"
#include "probed.h"

#include "data/batcher.h"
#include "data/fashion_mnist.h"
#include "models/attention/dgsa.h"
#include "models/attention/registry.h"
#include "models/model.h"
#include "run/device.h"
#include "spec/config.h"
#include "train/optimizer.h"
#include "train/step.h"

using namespace repro;

namespace {

// False (after printing the line ctest's SKIP_REGULAR_EXPRESSION looks for) without CUDA.
bool have_cuda() {
  if (torch::cuda::is_available()) return true;
  std::cout << "SKIPPED: no CUDA device visible to LibTorch " << TORCH_VERSION << "\n";
  return false;
}

// Width 64, 4 heads, with the residual from Q (dgsa), lambda schedules as "auto" resolves them.
AttentionOptions variant_options(const AttentionVariant& variant) {
  AttentionOptions options = attention_defaults(variant);
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
  model_settings.dim = model_settings.ffn.dim = 64;
  model_settings.heads = 4;
  model_settings.depth = 2;
  model_settings.patch = 7;
  model_settings.attention = variant_options(*dgsa_attention().variant);
  model_settings.ffn.kind = FfnKind::Swiglu;
  TrainOptions train;
  train.clip_norm = 1;
  auto model = build_model(model_settings, fashion_mnist_info());
  model->to(cuda);
  model->train();
  auto optimizer = make_optimizer(*model, train.optimizer, 3e-3);
  TrainStep step(*model, *optimizer, train, cuda);
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
    const double loss = step.run(batcher->inputs(split, indices, true), y, 3e-3, totals).item<double>();
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
