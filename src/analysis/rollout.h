#pragma once
// Attention rollout (Abnar & Zuidema 2020) and its variants for signed maps.
//
//   rollout      per layer: mean over heads A, then Â = (A + I) / Σ_j |A + I|_ij (rows
//                normalised by the sum of absolute values), R = Â_L ··· Â_2 Â_1.
//                For softmax maps (entries ≥ 0, rows summing to 1) this is exactly the
//                usual (A + I)/2 rollout. Differential maps (diff: rows sum to 1 − λ;
//                dgsa: 2g − 1, possibly ≈ 0 or negative) keep their sign: every row of
//                Â has absolute sum 1, so the product stays bounded and well defined,
//                and a negative entry (inhibition) stays negative.
//   last-layer   the last layer's head mean, no identity and no normalisation.
//   excitatory   the rollout of the positive part max(A, 0) with rows renormalised to
//                sum 1: only the excitatory weights (for softmax maps, = rollout).
//
// The relevance of each input token is one row of R: the class token's (vision,
// pool cls) or the mean of the real tokens' rows (mean pooling).
#include <torch/torch.h>

#include <string>
#include <vector>

namespace repro {

enum class RolloutMethod { Rollout, LastLayer, Excitatory };

RolloutMethod rollout_method(const std::string& name);  // rollout | last-layer | excitatory; throws otherwise

// maps: one (B, H, N, N) tensor per layer, in layer order -> (B, N, N) float64.
torch::Tensor roll_out(const std::vector<torch::Tensor>& maps, RolloutMethod method);

// R (B, N, N) -> relevance of each token (B, N): row 0 (class token), or the mean of the rows
// of real tokens when `real` (B, N) bool is defined (mean pooling over real tokens).
torch::Tensor token_relevance(const torch::Tensor& rolled, bool class_token_row, const torch::Tensor& real = {});

}  // namespace repro
