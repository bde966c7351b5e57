#pragma once
// Independent recomputations of each attention variant's formula, written with
// per-batch, per-head loops over explicit maps and plain matmuls. They share no
// code with src/ (only LibTorch primitives), so that a bug in a shared helper
// there cannot hide here.
#include <torch/torch.h>

#include <map>
#include <string>

namespace repro::test {

using Params = std::map<std::string, torch::Tensor>;  // the module's named parameters

// x: (B, N, D); pad: (B, N) bool, true = padding (or undefined). Each returns y (B, N, D)
// and, through `maps`, the per-head maps (B, heads, N, N).
torch::Tensor vanilla_reference(const torch::Tensor& x, const torch::Tensor& pad, const Params& p, int64_t heads,
                                torch::Tensor* maps = nullptr);
torch::Tensor diff_reference(const torch::Tensor& x, const torch::Tensor& pad, const Params& p, int64_t h,
                             double lambda_init, torch::Tensor* maps = nullptr);
torch::Tensor dgsa_reference(const torch::Tensor& x, const torch::Tensor& pad, const Params& p, int64_t h,
                             double lambda_init, bool q_residual, torch::Tensor* maps = nullptr);
// GML variant E with tanh, pre-softmax, residual, head-shared (the defaults).
torch::Tensor plug_reference(const torch::Tensor& x, const torch::Tensor& pad, const Params& p, int64_t heads,
                             torch::Tensor* maps = nullptr);
// Multiplicative, max over the whole batch of real tokens (the defaults).
torch::Tensor gi_reference(const torch::Tensor& x, const torch::Tensor& pad, const Params& p, int64_t heads,
                           double inh_p);

}  // namespace repro::test
