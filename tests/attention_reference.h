#pragma once
// Independent recomputations of attention formulas, written with per-batch, per-head loops
// over explicit maps and plain matmuls. They share no code with src/ (only LibTorch
// primitives), so that a bug in a shared helper there cannot hide here. This file holds the
// pieces and the two shared recipes (single-map attention, the differential layout); each
// variant's own reference sits in its test file (tests/test_attention_<name>.cpp).
#include <torch/torch.h>

#include <map>
#include <string>

namespace repro::test {

using Params = std::map<std::string, torch::Tensor>;  // the module's named parameters

// ---- pieces

// x W^T (+ b when `bias` and the module has one) of the parameters NAME.weight, NAME.bias.
torch::Tensor linear(const torch::Tensor& x, const Params& p, const std::string& name, bool bias = true);
// Row softmax of one (N, N) logit matrix with the padded key columns of batch row b removed.
torch::Tensor masked_softmax(torch::Tensor logits, const torch::Tensor& pad, int64_t b);
// Columns [start, start + width) of a matrix.
torch::Tensor cols(const torch::Tensor& m, int64_t start, int64_t width);
// RMSNorm over the last dim, eps 1e-5, times `weight`.
torch::Tensor rms(const torch::Tensor& o, const torch::Tensor& weight);

// ---- recipes
// x: (B, N, D); pad: (B, N) bool, true = padding (or undefined). Each returns y (B, N, D)
// and, through `maps`, the per-head maps (B, heads, N, N).

// Multi-head softmax attention with qkv (D -> 3D) and out (D -> D) projections.
torch::Tensor vanilla_reference(const torch::Tensor& x, const torch::Tensor& pad, const Params& p, int64_t heads,
                                torch::Tensor* maps = nullptr);

// The differential layout of diff and dgsa (q, k, v, out without bias; head pairs 2i, 2i+1;
// per-head RMSNorm x (1 - lambda_init)), the two maps of head i combined as
// A1 - lambda A2 (gates undefined) or g A1 - (1 - g) A2 (gates: (B, N, h)).
torch::Tensor differential_reference(const torch::Tensor& x, const torch::Tensor& pad, const Params& p, int64_t h,
                                     double lambda_init, const torch::Tensor& lambda, const torch::Tensor& gates,
                                     torch::Tensor* maps = nullptr);

}  // namespace repro::test
