// Linear layers and dropout that use every LibTorch thread on the CPU, and a GELU whose gradient is
// right on the CPU (formulas and reasons in cpu_ops.h).
#include "models/cpu_ops.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>
#include <ATen/ThreadLocalState.h>
#include <torch/csrc/autograd/custom_function.h>

#include <atomic>
#include <mutex>

#include "data/random.h"
#include "models/autocast.h"

namespace repro {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

constexpr int64_t kMinRowsPerThread = 32;
constexpr double kMinFlops = 4e6;  // below this a product is faster on one thread than woken threads

// Splits [0, size) into one block per LibTorch thread and runs `block(begin, end)` on each, with
// the caller's thread-local state (grad mode, dispatch keys): the blocks call ATen operators, and
// an OpenMP worker would otherwise run them with grad mode on (out= ops then refuse inputs that
// require grad).
template <typename Block>
void per_thread_blocks(int64_t size, const Block& block) {
  const int64_t threads = at::get_num_threads();
  const at::ThreadLocalState caller_state;
  at::parallel_for(0, size, (size + threads - 1) / threads, [&](int64_t begin, int64_t end) {
    at::ThreadLocalStateGuard guard(caller_state);
    block(begin, end);
  });
}

// y (M, N) = x (M, K) Wᵀ + b, rows in blocks.
torch::Tensor forward_rows(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
  auto y = torch::empty({x.size(0), weight.size(0)}, x.options());
  const auto weight_t = weight.t();  // (K, N)
  per_thread_blocks(x.size(0), [&](int64_t begin, int64_t end) {
    auto rows = y.slice(0, begin, end);
    if (bias.defined())
      at::addmm_out(rows, bias, x.slice(0, begin, end), weight_t);
    else
      at::mm_out(rows, x.slice(0, begin, end), weight_t);
  });
  return y;
}

// ∂x (M, K) = ∂y W and ∂W (N, K) = ∂yᵀ x, rows of ∂x and of ∂W in blocks.
variable_list backward_rows(const torch::Tensor& grad_y, const torch::Tensor& x, const torch::Tensor& weight) {
  auto grad_x = torch::empty_like(x);            // (M, K)
  auto grad_weight = torch::empty_like(weight);  // (N, K)
  per_thread_blocks(x.size(0), [&](int64_t begin, int64_t end) {
    auto rows = grad_x.slice(0, begin, end);
    at::mm_out(rows, grad_y.slice(0, begin, end), weight);
  });
  per_thread_blocks(weight.size(0), [&](int64_t begin, int64_t end) {
    auto outs = grad_weight.slice(0, begin, end);
    at::mm_out(outs, grad_y.slice(1, begin, end).t(), x);  // (n, M) (M, K)
  });
  return {grad_x, grad_weight};
}

// Custom functions take no undefined tensors: one with a bias, one without.
struct SplitLinear : public torch::autograd::Function<SplitLinear> {
  // x (M, K), weight (N, K), bias (N) -> (M, N)
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, const torch::Tensor& weight,
                               const torch::Tensor& bias) {
    ctx->save_for_backward({x, weight});
    return forward_rows(x, weight, bias);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto grad_y = grads[0].contiguous();  // (M, N)
    auto result = backward_rows(grad_y, saved[0], saved[1]);
    result.push_back(grad_y.sum(0));  // ∂b (N)
    return result;
  }
};

struct SplitLinearNoBias : public torch::autograd::Function<SplitLinearNoBias> {
  // x (M, K), weight (N, K) -> (M, N)
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, const torch::Tensor& weight) {
    ctx->save_for_backward({x, weight});
    return forward_rows(x, weight, torch::Tensor());
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    return backward_rows(grads[0].contiguous(), saved[0], saved[1]);
  }
};

struct SplitBatchedMatmul : public torch::autograd::Function<SplitBatchedMatmul> {
  // a (G, n, k), b (G, k, m) -> (G, n, m), the G products in blocks
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& a, const torch::Tensor& b) {
    ctx->save_for_backward({a, b});
    auto y = torch::empty({a.size(0), a.size(1), b.size(2)}, a.options());
    per_thread_blocks(a.size(0), [&](int64_t begin, int64_t end) {
      auto block = y.slice(0, begin, end);
      at::bmm_out(block, a.slice(0, begin, end), b.slice(0, begin, end));
    });
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto &a = saved[0], &b = saved[1];  // (G, n, k), (G, k, m)
    const auto& grad_y = grads[0];            // (G, n, m)
    auto grad_a = torch::empty(a.sizes(), a.options()), grad_b = torch::empty(b.sizes(), b.options());
    per_thread_blocks(a.size(0), [&](int64_t begin, int64_t end) {
      const auto g = grad_y.slice(0, begin, end);
      auto block_a = grad_a.slice(0, begin, end), block_b = grad_b.slice(0, begin, end);
      at::bmm_out(block_a, g, b.slice(0, begin, end).transpose(1, 2));  // (g, n, m) (g, m, k)
      at::bmm_out(block_b, a.slice(0, begin, end).transpose(1, 2), g);  // (g, k, n) (g, n, m)
    });
    return {grad_a, grad_b};
  }
};

uint64_t splitmix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t draw_seed() {
  auto generator = draw_generator(torch::kCPU);  // the run's (data/random.h)
  std::lock_guard<std::mutex> lock(generator.mutex());
  return generator.get<at::CPUGeneratorImpl>()->random64();
}

// out[i] = scale when draw i < threshold (of 2^32), else 0; draw 2j and 2j+1 are the halves of value j.
template <typename T>
void fill_mask(T* out, int64_t size, uint64_t seed, uint64_t threshold, T scale) {
  constexpr uint64_t kGamma = 0x9e3779b97f4a7c15ULL;
  at::parallel_for(0, (size + 1) / 2, 16384, [&](int64_t begin, int64_t end) {
    for (int64_t j = begin; j < end; ++j) {
      const uint64_t z = splitmix64(seed + static_cast<uint64_t>(j + 1) * kGamma);
      out[2 * j] = (z & 0xffffffffULL) < threshold ? scale : T(0);
      if (2 * j + 1 < size) out[2 * j + 1] = (z >> 32) < threshold ? scale : T(0);
    }
  });
}

}  // namespace

namespace {

// The split products are custom functions that autocast does not see: under CPU autocast (bf16 training on
// the CPU), and for operands other than two float32 or two float64 tensors, LibTorch's own ops run instead.
bool splits_outside_autocast(const torch::Tensor& a, const torch::Tensor& b) {
  const auto type = a.scalar_type();
  return type == b.scalar_type() && (type == torch::kFloat32 || type == torch::kFloat64) &&
         !autocast_enabled(torch::kCPU);
}

}  // namespace

bool splits_linear(const torch::Tensor& x, int64_t out_features) {
  if (!x.device().is_cpu() || at::get_num_threads() < 2 || at::in_parallel_region() || x.dim() < 2) return false;
  const int64_t in_features = x.size(-1), rows = x.numel() / std::max<int64_t>(1, in_features);
  const double flops = 2.0 * static_cast<double>(rows) * in_features * out_features;
  return rows >= kMinRowsPerThread * at::get_num_threads() && out_features >= at::get_num_threads() &&
         flops >= kMinFlops;
}

torch::Tensor linear(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
  if (!splits_linear(x, weight.size(0)) || !splits_outside_autocast(x, weight)) return torch::linear(x, weight, bias);
  auto shape = x.sizes().vec();  // (..., in)
  shape.back() = weight.size(0);
  const auto rows = x.reshape({-1, x.size(-1)}).contiguous();  // (M, in)
  const auto y = bias.defined() ? SplitLinear::apply(rows, weight, bias) : SplitLinearNoBias::apply(rows, weight);
  return y.view(shape);  // (..., out)
}

bool splits_batched_matmul(const torch::Tensor& a, const torch::Tensor& b) {
  if (!a.device().is_cpu() || at::get_num_threads() < 2 || at::in_parallel_region()) return false;
  if (a.dim() < 3 || a.dim() != b.dim() || a.sizes().slice(0, a.dim() - 2) != b.sizes().slice(0, b.dim() - 2))
    return false;
  const int64_t products = a.numel() / (a.size(-2) * a.size(-1));
  const double flops = 2.0 * static_cast<double>(products) * a.size(-2) * a.size(-1) * b.size(-1);
  return products >= at::get_num_threads() && flops >= kMinFlops;
}

torch::Tensor batched_matmul(const torch::Tensor& a, const torch::Tensor& b) {
  if (!splits_batched_matmul(a, b) || !splits_outside_autocast(a, b)) return torch::matmul(a, b);
  auto shape = a.sizes().vec();  // (..., n, k)
  shape.back() = b.size(-1);
  const auto a3 = a.reshape({-1, a.size(-2), a.size(-1)}), b3 = b.reshape({-1, b.size(-2), b.size(-1)});
  return SplitBatchedMatmul::apply(a3, b3).view(shape);  // (..., n, m)
}

namespace {

// GELU whose backward gets its gradient and input in the same (contiguous) layout.
struct ContiguousGradGelu : public torch::autograd::Function<ContiguousGradGelu> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x) {
    ctx->save_for_backward({x});
    return at::gelu(x);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto x = ctx->get_saved_variables()[0];
    return {at::gelu_backward(grads[0].contiguous(), x.contiguous())};
  }
};

}  // namespace

int kernel_threads() {
  std::atomic<uint64_t> seen{0};  // bit t: LibTorch thread t ran a block
  per_thread_blocks(at::get_num_threads(),
                    [&](int64_t, int64_t) { seen.fetch_or(uint64_t{1} << (at::get_thread_num() % 64)); });
  return __builtin_popcountll(seen.load());
}

torch::Tensor gelu(const torch::Tensor& x) {
  if (!x.device().is_cpu()) return torch::gelu(x);
  return ContiguousGradGelu::apply(x);
}

torch::Tensor linear(const torch::nn::Linear& layer, const torch::Tensor& x) {
  return linear(x, layer->weight, layer->bias);
}

torch::Tensor dropout_mask(const torch::Tensor& like, double p) {
  TORCH_CHECK(p >= 0 && p < 1, "dropout probability must be in [0, 1), got ", p);
  auto mask = torch::empty(like.sizes(), like.options().device(torch::kCPU).requires_grad(false));
  const double keep = 1.0 - p;
  const auto threshold = static_cast<uint64_t>(keep * 4294967296.0);  // P(draw < threshold) = keep
  const uint64_t seed = draw_seed();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, mask.scalar_type(), "dropout_mask", [&] {
    fill_mask<scalar_t>(mask.data_ptr<scalar_t>(), mask.numel(), seed, threshold, static_cast<scalar_t>(1.0 / keep));
  });
  return mask;
}

torch::Tensor dropout(const torch::Tensor& x, double p, bool training) {
  if (!training || p == 0) return x;
  if (p >= 1) return x * 0;  // every element dropped (the keys allow at most 0.99)
  if (x.is_cuda()) return std::get<0>(at::_fused_dropout(x, 1.0 - p, draw_generator(x.device())));  // keep: 1 - p
  if (!x.device().is_cpu()) return torch::dropout(x, p, training);
  return x * dropout_mask(x, p);
}

}  // namespace repro
