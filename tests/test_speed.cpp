// The GPU-path mechanics, checked on the CPU: the autocast wrapper, bf16
// numerics of every variant, gradient clipping without host reads, the FLOP
// count, device-resident splits, and `repro bench` end to end.
#include <nlohmann/json.hpp>

#include "catch.h"
#include "data/batcher.h"
#include "data/fashion_mnist.h"
#include "fixtures.h"
#include "models/attention/dgsa.h"
#include "models/attention/registry.h"
#include "models/flops.h"
#include "models/model.h"
#include "train/optimizer.h"
#include "train/precision.h"
#include "train/step.h"
#include "util/files.h"

using namespace repro;
using repro::test::Contains;

namespace {

// A ViT of width 32, 2 blocks of 4 heads, patch 7, MLP x2, with `attention`
// (dgsa: lambda_init fixed, no residual from Q).
ModelOptions tiny_vit(const std::string& attention) {
  ModelOptions o;
  o.dim = 32;
  o.heads = 4;
  o.depth = 2;
  o.patch = 7;
  o.ffn.ratio = 2;
  o.attention = attention_defaults(attention);
  if (attention == "dgsa") o.attention.settings.as<DgsaOptions>().q_residual = false;
  return o;
}

double relative_error(const torch::Tensor& a, const torch::Tensor& b) {
  return ((a.to(torch::kFloat64) - b.to(torch::kFloat64)).norm() / b.to(torch::kFloat64).norm()).item<double>();
}

}  // namespace

TEST_CASE("autocast scope: products in bf16 inside, float32 outside, state restored", "[train]") {
  const auto a = torch::randn({8, 8}), b = torch::randn({8, 8});
  {
    AutocastScope scope(torch::kCPU, Precision::Bf16);
    CHECK(torch::matmul(a, b).scalar_type() == torch::kBFloat16);
    {
      AutocastScope inner(torch::kCPU, Precision::Fp32);  // fp32 scopes change nothing
      CHECK(torch::matmul(a, b).scalar_type() == torch::kBFloat16);
    }
  }
  CHECK(torch::matmul(a, b).scalar_type() == torch::kFloat32);
  CHECK(resolve_precision(PrecisionChoice::Auto, torch::kCPU) == Precision::Fp32);  // auto: fp32 on CPU
  CHECK(resolve_precision(PrecisionChoice::Auto, torch::Device(torch::kCUDA, 0)) == Precision::Bf16);
  CHECK(resolve_precision(PrecisionChoice::Bf16, torch::kCPU) == Precision::Bf16);
  CHECK(resolve_precision(PrecisionChoice::Fp32, torch::Device(torch::kCUDA, 0)) == Precision::Fp32);
}

TEST_CASE("every variant under bf16 autocast stays within bf16 tolerance of float32", "[model]") {
  for (const auto& entry : attention_table()) {
    const std::string& kind = entry.variant->name;
    INFO(kind);
    torch::manual_seed(5);
    auto module = make_attention(tiny_vit(kind), 1);
    {
      torch::NoGradGuard no_grad;
      for (auto& p : module->parameters()) p.normal_(0, 0.2);
    }
    module->eval();
    const auto x = torch::randn({2, 9, 32});
    const auto pad = torch::tensor({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1}, torch::kBool).view({2, 9});
    const auto exact = module->forward(x, pad);
    torch::Tensor low;
    {
      AutocastScope scope(torch::kCPU, Precision::Bf16);
      low = module->forward(x, pad);
    }
    CHECK(low.scalar_type() == torch::kBFloat16);
    CHECK(relative_error(low, exact) < 3e-2);  // bf16 keeps 8 bits of mantissa: ~4e-3 per rounding
  }
}

TEST_CASE("clip_gradients equals LibTorch's clip_grad_norm_ and stays on the device", "[train]") {
  torch::manual_seed(2);
  auto a = torch::randn({4, 3}, torch::requires_grad()), b = torch::randn({5}, torch::requires_grad());
  auto c = a.detach().clone().requires_grad_(), d = b.detach().clone().requires_grad_();
  ((a * 3).sum() + (b * b).sum()).backward();
  ((c * 3).sum() + (d * d).sum()).backward();
  const auto norm = clip_gradients({a, b}, 0.5);
  const double expected = torch::nn::utils::clip_grad_norm_(std::vector<torch::Tensor>{c, d}, 0.5);
  CHECK(norm.dim() == 0);
  CHECK(norm.item<double>() == Approx(expected).epsilon(1e-6));
  CHECK(torch::allclose(a.grad(), c.grad()));
  CHECK(torch::allclose(b.grad(), d.grad()));
  CHECK(torch::cat({a.grad().flatten(), b.grad()}).norm().item<double>() == Approx(0.5).epsilon(1e-4));
  // Below the bound nothing changes.
  const auto before = a.grad().clone();
  clip_gradients({a, b}, 100.0);
  CHECK(torch::equal(a.grad(), before));
}

TEST_CASE("FLOP count: vanilla ViT by hand; diff and dgsa add 2 N^2 D per block", "[model]") {
  const int64_t D = 32, N = 17, P = 16, hidden = 64, depth = 2, classes = 10;  // 28 / 7 = 4x4 patches + cls
  auto vanilla = build_model(tiny_vit("vanilla"), fashion_mnist_info());
  const FlopCount count = forward_flops(*vanilla, N);
  // per token: qkv 3D^2, out D^2, mlp 2 D hidden (GELU x2: fc1, fc2); patch conv 49 D per patch; head D classes.
  const double linear = 2.0 * depth * N * (3 * D * D + D * D + 2 * D * hidden) + 2.0 * P * 49 * D + 2.0 * D * classes;
  CHECK(count.linear == Approx(linear));
  CHECK(count.pairwise == Approx(depth * 4.0 * N * N * D));
  CHECK(count.train_step() == Approx(3 * (linear + depth * 4.0 * N * N * D)));
  for (const std::string kind : {"diff", "dgsa"}) {
    INFO(kind);
    auto model = build_model(tiny_vit(kind), fashion_mnist_info());
    CHECK(forward_flops(*model, N).pairwise == Approx(depth * 6.0 * N * N * D));
  }
  // dgsa's q, k, v, out are vanilla's 4 D^2; its gate (D -> h = 4 heads per token) is one more linear layer.
  auto dgsa = build_model(tiny_vit("dgsa"), fashion_mnist_info());
  CHECK(forward_flops(*dgsa, N).linear == Approx(linear + 2.0 * depth * N * D * 4));
}

TEST_CASE("text batches trim with CPU lengths when the split has them", "[data]") {
  Split split{torch::tensor({5, 6, 0, 0, 7, 0, 0, 0}, torch::kInt64).view({2, 4}), torch::zeros({2}, torch::kInt64)};
  const TextBatcher batcher(torch::kCPU);
  CHECK(batcher.inputs(split, torch::arange(2), false).inputs.size(1) == 2);
  split.lengths = torch::tensor({3, 1}, torch::kInt64);  // as resident_split would record (here: deliberately 3)
  CHECK(batcher.inputs(split, torch::arange(2), false).inputs.size(1) == 3);  // the recorded lengths are used
  CHECK(batcher.inputs(split, torch::tensor({1}, torch::kInt64), false).inputs.size(1) == 1);
  const Split same = resident_split(split, torch::kCPU);  // on the CPU: the split itself
  CHECK(same.inputs.data_ptr() == split.inputs.data_ptr());
}

TEST_CASE("a training step lowers the loss on a fixed batch, in fp32 and under bf16", "[train]") {
  for (const PrecisionChoice precision : {PrecisionChoice::Fp32, PrecisionChoice::Bf16}) {
    INFO(name_of(precision));
    torch::manual_seed(1);
    TrainOptions train;
    train.precision = precision;
    train.clip_norm = 1;
    auto model = build_model(tiny_vit("dgsa"), fashion_mnist_info());
    model->train();
    TrainStep step(*model, train, torch::kCPU, Schedule::constant(3e-3));
    const Batch x{torch::randn({16, 1, 28, 28}), {}};
    const auto y = torch::randint(0, 10, {16}, torch::kInt64);
    StepTotals totals(torch::kCPU);
    const double first = step.run(x, y, 0, 1, totals).loss.item<double>();
    double last = first;
    for (int i = 1; i < 16; ++i) last = step.run(x, y, i, 1, totals).loss.item<double>();
    CHECK(last < 0.5 * first);
    CHECK(totals.seen == 16 * 16);
    for (const auto& p : model->parameters()) CHECK(p.scalar_type() == torch::kFloat32);  // master weights stay fp32
  }
}
