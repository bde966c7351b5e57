#pragma once
// Linear layers and dropout that use every LibTorch thread on the CPU, and a GELU whose
// gradient is right on the CPU.
//
//   linear(layer, x)   = x Wᵀ + b, as torch::nn::Linear computes it. On the CPU with more
//                        than one LibTorch thread, each matrix product of the forward and
//                        backward pass is split into row blocks that LibTorch's own
//                        (OpenMP) threads compute, each with a one-thread OpenBLAS call:
//                          forward   y[rows]  = x[rows] Wᵀ + b
//                          backward  ∂x[rows] = ∂y[rows] W,  ∂W[outs] = ∂y[:, outs]ᵀ x,  ∂b = Σ_rows ∂y
//                        OpenBLAS's own threads spin (sched_yield) after every call and took
//                        cores from LibTorch's element-wise work, and a single-thread OpenBLAS
//                        left one core idle during matrix products (docs/performance.md).
//                        Elsewhere (CUDA, one thread, small products) it is torch::linear.
//   batched_matmul(a, b) = a b over the leading (batch, head) dimensions, as torch::matmul without
//                        broadcasting; on the CPU the products are split into blocks of the
//                        batch over LibTorch's threads (ATen 1.13's CPU bmm runs them one after
//                        another on one thread: 2 threads = 1 thread, measured), in the forward
//                        and backward pass (∂a = ∂y bᵀ, ∂b = aᵀ ∂y per product).
//   dropout(x, p, on)  = x ⊙ m / (1 − p), m_i ~ Bernoulli(1 − p), drawn from the run's generator
//                        (data/random.h: draw_generator; LibTorch's default one outside a run). On
//                        the CPU the mask comes from a counter-based generator (SplitMix64 of seed +
//                        element index, two 32-bit draws per 64-bit value) filled by all threads;
//                        the seed is one draw from that CPU generator, so its seed and checkpointed
//                        state decide it, and the mask does not depend on the thread count. ATen's
//                        CPU bernoulli_ is one serial generator (measured: 12% of a ViT training
//                        step). On CUDA it is at::_fused_dropout with the run's CUDA generator
//                        (torch::dropout takes no generator), graph-safe as dropout is.
//   gelu(x)            = x Φ(x) (exact), as torch::gelu. LibTorch 1.13's CPU gelu_backward is wrong
//                        in float32 and bfloat16 when the incoming gradient's memory layout differs
//                        from the input's (a transposed view's gradient, e.g. gi's key side):
//                        measured errors up to 16 in place of values below 3, and values read from
//                        uninitialised memory (valgrind), so training was not even repeatable;
//                        float64 is right. On the CPU the backward makes both contiguous first.
#include <torch/torch.h>

namespace repro {

// x (..., in) -> (..., out) through `layer`'s weight (out, in) and bias (out) if it has one.
torch::Tensor linear(const torch::nn::Linear& layer, const torch::Tensor& x);
// The same with explicit weight (out, in) and bias (out, or undefined).
torch::Tensor linear(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias);

// a (..., n, k) b (..., k, m) -> (..., n, m); equal leading dimensions (else torch::matmul).
torch::Tensor batched_matmul(const torch::Tensor& a, const torch::Tensor& b);

// GELU (exact); x of any shape.
torch::Tensor gelu(const torch::Tensor& x);

// Inverted dropout (identity when !training or p == 0).
torch::Tensor dropout(const torch::Tensor& x, double p, bool training);

// The CPU dropout mask: 0 or 1 / (1 − p) per element, of x's shape and dtype (for tests).
torch::Tensor dropout_mask(const torch::Tensor& like, double p);

// How many LibTorch threads one parallel block of these kernels reaches now: the thread count,
// or 1 where repro was built without OpenMP (REPRO_OPENMP=OFF: ATen's inline parallel_for then
// runs serially in repro's own code). Recorded in every environment record; tested.
int kernel_threads();

// Whether linear() splits a product of this size over threads here (for tests and bench).
bool splits_linear(const torch::Tensor& x, int64_t out_features);
bool splits_batched_matmul(const torch::Tensor& a, const torch::Tensor& b);

}  // namespace repro
