// models/cpu_ops: the thread-split linear layer equals torch::linear (values and gradients),
// the counter-based CPU dropout is a correct, seeded, thread-count-independent dropout, and
// GELU's float32 gradient is right whatever the layout of the incoming gradient.
#include <ATen/Parallel.h>

#include "catch.h"

#include "fixtures.h"
#include "models/cpu_ops.h"
#include "train/precision.h"

namespace {

using repro::test::ThreadCount;

struct LinearGradients {
  torch::Tensor y, x, weight, bias;
};

LinearGradients run_linear(bool split, const torch::Tensor& x0, const torch::Tensor& w0, const torch::Tensor& b0) {
  auto x = x0.clone().requires_grad_(true), w = w0.clone().requires_grad_(true);
  auto b = b0.defined() ? b0.clone().requires_grad_(true) : torch::Tensor();
  const auto y = split ? repro::linear(x, w, b) : torch::linear(x, w, b);
  (y * torch::linspace(-1, 1, y.numel(), y.options()).view(y.sizes())).sum().backward();
  return {y.detach(), x.grad(), w.grad(), b.defined() ? b.grad() : torch::Tensor()};
}

}  // namespace

TEST_CASE("the thread-split linear layer equals torch::linear in value and gradients", "[model]") {
  ThreadCount two(2);
  torch::manual_seed(3);
  const auto options = torch::TensorOptions().dtype(torch::kFloat64);
  const auto x = torch::randn({4, 70, 64}, options);  // (B, N, in), 280 rows: split over 2 threads
  const auto w = torch::randn({128, 64}, options), b = torch::randn({128}, options);
  REQUIRE(repro::splits_linear(x, 128));
  for (const bool with_bias : {true, false}) {
    const auto bias = with_bias ? b : torch::Tensor();
    const auto split = run_linear(true, x, w, bias), plain = run_linear(false, x, w, bias);
    CHECK(split.y.sizes() == plain.y.sizes());
    CHECK(torch::allclose(split.y, plain.y, 1e-12, 1e-12));
    CHECK(torch::allclose(split.x, plain.x, 1e-12, 1e-12));
    CHECK(torch::allclose(split.weight, plain.weight, 1e-12, 1e-12));
    if (with_bias) CHECK(torch::allclose(split.bias, plain.bias, 1e-12, 1e-12));
  }
}

TEST_CASE("repro's CPU kernels reach every LibTorch thread (OpenMP builds)", "[model]") {
  // ATen's parallel_for is an inline template: in a file compiled without OpenMP it runs
  // serially, as all of these kernels did before the build enabled OpenMP.
  ThreadCount two(2);
#ifdef REPRO_OPENMP
  CHECK(repro::kernel_threads() == 2);
#else
  WARN("built with REPRO_OPENMP=OFF: repro's CPU kernels run on one thread");
  CHECK(repro::kernel_threads() == 1);
#endif
  ThreadCount one(1);
  CHECK(repro::kernel_threads() == 1);
}

TEST_CASE("the linear layer is not split on one thread or for small products", "[model]") {
  const auto x = torch::randn({4, 70, 48});
  {
    ThreadCount one(1);
    CHECK_FALSE(repro::splits_linear(x, 96));
  }
  ThreadCount two(2);
  CHECK(repro::splits_linear(x, 512));
  CHECK_FALSE(repro::splits_linear(torch::randn({2, 3, 8}), 8));  // 6 rows, 768 flops
}

TEST_CASE("CPU dropout keeps 1 - p of the elements, scaled by 1 / (1 - p)", "[model]") {
  torch::manual_seed(0);
  const double p = 0.25;
  const auto mask = repro::dropout_mask(torch::empty({1000, 1001}), p);  // odd size: the last half-draw
  const auto kept = mask.gt(0);
  CHECK(torch::all(mask.eq(0) | mask.eq(static_cast<float>(1.0 / (1 - p)))).item<bool>());
  const double fraction = kept.to(torch::kFloat64).mean().item<double>();
  CHECK(fraction == Approx(1 - p).margin(0.003));  // 1e6 draws: std of the fraction 0.0004
  // Neighbouring elements (the two halves of one 64-bit value) are not correlated.
  const auto a = kept.flatten().slice(0, 0, 1000000, 2).to(torch::kFloat64);
  const auto c = kept.flatten().slice(0, 1, 1000001, 2).to(torch::kFloat64);
  const double both = (a * c).mean().item<double>();
  CHECK(both == Approx((1 - p) * (1 - p)).margin(0.004));
}

TEST_CASE("CPU dropout follows the seed, advances the generator and ignores the thread count", "[model]") {
  const auto like = torch::empty({64, 257});
  torch::manual_seed(7);
  torch::Tensor first, second, one_thread;
  {
    ThreadCount two(2);
    first = repro::dropout_mask(like, 0.5);
    second = repro::dropout_mask(like, 0.5);
  }
  torch::manual_seed(7);
  {
    ThreadCount one(1);
    one_thread = repro::dropout_mask(like, 0.5);
  }
  CHECK(torch::equal(first, one_thread));
  CHECK_FALSE(torch::equal(first, second));
}

TEST_CASE("CPU dropout's gradient is its mask; eval and p = 0 are the identity", "[model]") {
  torch::manual_seed(1);
  const auto x = torch::randn({8, 33}, torch::requires_grad());
  torch::manual_seed(5);
  const auto y = repro::dropout(x, 0.3, /*training=*/true);
  y.sum().backward();
  torch::manual_seed(5);
  const auto mask = repro::dropout_mask(x, 0.3);
  CHECK(torch::allclose(y, x.detach() * mask));
  CHECK(torch::allclose(x.grad(), mask));
  CHECK(torch::equal(repro::dropout(x, 0.3, /*training=*/false), x));
  CHECK(torch::equal(repro::dropout(x, 0.0, /*training=*/true), x));
  CHECK(torch::equal(repro::dropout(x, 1.0, /*training=*/true), torch::zeros_like(x)));
}

TEST_CASE("the thread-split batched product equals torch::matmul in value and gradients", "[model]") {
  ThreadCount two(2);
  torch::manual_seed(4);
  const auto options = torch::TensorOptions().dtype(torch::kFloat64);
  const auto q0 = torch::randn({4, 4, 64, 32}, options), k0 = torch::randn({4, 4, 64, 32}, options);
  REQUIRE(repro::splits_batched_matmul(q0, k0.transpose(-2, -1)));
  torch::Tensor grads[2][2], values[2];
  for (const int split : {0, 1}) {
    auto q = q0.clone().requires_grad_(true), k = k0.clone().requires_grad_(true);
    const auto kt = k.transpose(-2, -1);  // a transposed view, as attention passes it
    values[split] = split ? repro::batched_matmul(q, kt) : torch::matmul(q, kt);  // (4, 4, 64, 64)
    (values[split] * torch::linspace(-1, 1, values[split].numel(), options).view(values[split].sizes()))
        .sum()
        .backward();
    grads[split][0] = q.grad();
    grads[split][1] = k.grad();
  }
  CHECK(values[1].sizes() == values[0].sizes());
  CHECK(torch::allclose(values[1], values[0], 1e-12, 1e-12));
  CHECK(torch::allclose(grads[1][0], grads[0][0], 1e-12, 1e-12));
  CHECK(torch::allclose(grads[1][1], grads[0][1], 1e-12, 1e-12));
  CHECK_FALSE(repro::splits_batched_matmul(q0, torch::randn({1, 4, 32, 64}, options)));  // broadcasting
}

TEST_CASE("GELU's float32 gradient is right when the incoming gradient is a transposed view", "[model]") {
  // LibTorch 1.13's CPU gelu_backward is wrong here in float32 (errors of order 1) and right in
  // float64: the float64 gradient is the reference.
  ThreadCount one(1);
  torch::manual_seed(6);
  const auto x64 = torch::randn({4, 5, 6}, torch::kFloat64);
  const auto grad64 = torch::randn({4, 6, 5}, torch::kFloat64).transpose(1, 2);  // (4, 5, 6), not contiguous
  auto reference_x = x64.clone().requires_grad_(true);
  torch::gelu(reference_x).backward(grad64);
  auto x = x64.to(torch::kFloat32).requires_grad_(true);
  const auto y = repro::gelu(x);
  CHECK(torch::allclose(y.to(torch::kFloat64), torch::gelu(x64), 1e-6, 1e-6));
  y.backward(grad64.to(torch::kFloat32));
  CHECK((x.grad().to(torch::kFloat64) - reference_x.grad()).abs().max().item<double>() <= 1e-5);
}

TEST_CASE("under CPU bf16 autocast the split products step aside: bf16 results, no dtype mix-up", "[model]") {
  // The split products are custom functions autocast does not see; LibTorch 2.6 refused the bf16 x float32
  // product they were handed ("mat1 and mat2 must have the same dtype") when bf16 ran on more than one thread.
  ThreadCount two(2);
  torch::manual_seed(5);
  const auto x = torch::randn({4, 70, 64}), w = torch::randn({128, 64}), b = torch::randn({128});
  REQUIRE(repro::splits_linear(x, 128));
  const auto a = torch::randn({8, 4, 32, 16}), v = torch::randn({8, 4, 16, 32});
  torch::Tensor y, product, mixed;
  {
    repro::AutocastScope bf16(torch::kCPU, repro::Precision::Bf16);
    y = repro::linear(x, w, b);
    product = repro::batched_matmul(a, v);
    mixed = repro::batched_matmul(a.to(torch::kBFloat16), v);  // a bf16 map times float32 values
  }
  CHECK(y.scalar_type() == torch::kBFloat16);
  CHECK(product.scalar_type() == torch::kBFloat16);
  CHECK(mixed.scalar_type() == torch::kBFloat16);
  CHECK(torch::allclose(y.to(torch::kFloat32), torch::linear(x, w, b), 5e-2, 2e-1));
  CHECK(torch::allclose(product.to(torch::kFloat32), torch::matmul(a, v), 5e-2, 2e-1));
  // Outside autocast the split path runs again.
  CHECK(repro::linear(x, w, b).scalar_type() == torch::kFloat32);
}
