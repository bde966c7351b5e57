#pragma once
// Shared attention mechanics: head reshapes, masks, and one scaled dot-product
// attention with a fused path (LibTorch >= 2.0) and an explicit path side by side.
#include <torch/torch.h>

#include <vector>

namespace repro {

// (B, N, H*d) -> (B, H, N, d)
torch::Tensor split_heads(const torch::Tensor& x, int64_t heads);
// (B, H, N, d) -> (B, N, H*d)
torch::Tensor merge_heads(const torch::Tensor& x);

// (B, N) bool, true = padding  ->  (B, 1, 1, N) additive float mask (0 or -inf), or undefined.
torch::Tensor additive_key_mask(const torch::Tensor& padding_mask, torch::ScalarType dtype);

// The pieces of the explicit path, for any map (CONTRIBUTING.md: a variant whose map is not a softmax builds it
// from these, and the shared tests' demands hold: padded keys inert, the map recorded for rollout):
// q k^T * scale: q, k (B, H, N, d) -> (B, H, N, N).
torch::Tensor attention_logits(const torch::Tensor& q, const torch::Tensor& k, double scale);
// A map with its padded keys' columns set to 0: maps (B, H, N, N), padding_mask (B, N) true = padding (undefined:
// none). A softmax needs the -inf logits of additive_key_mask instead; a sigmoid, a difference or a product of maps
// takes this after it is formed.
torch::Tensor without_padded_keys(const torch::Tensor& maps, const torch::Tensor& padding_mask);
// maps (B, H, N, N) times v (B, H, N, dv) -> (B, H, N, dv), with dropout on the maps from the run's generator when
// training; under an AttentionMapProbe (repro rollout) it records the maps as they are before dropout.
torch::Tensor map_times_values(const torch::Tensor& maps, const torch::Tensor& v, double dropout, bool training);

// Row-softmax attention maps softmax(q k^T * scale + mask): q, k (B, H, N, d) -> (B, H, N, N).
torch::Tensor attention_maps(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& padding_mask,
                             double scale);

// softmax(q k^T * scale + mask) v with dropout on the maps: (B, H, N, d) -> (B, H, N, dv).
// Uses the fused kernel when `fused` (AttentionOptions::fused), LibTorch has one, `maps` is null and no
// dropout is drawn (the kernel would draw from LibTorch's default generator, not the run's: data/random.h);
// otherwise the explicit path, which also returns the maps (before dropout) through `maps`.
torch::Tensor scaled_dot_product(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                                 const torch::Tensor& padding_mask, double scale, double dropout, bool training,
                                 bool fused, torch::Tensor* maps);

// FLOPs of attention's pairwise products over N tokens: scores Q K^T over all heads
// (summed query width qk_width) and maps times values (summed value width v_width):
// 2 N^2 qk_width + 2 N^2 v_width.
double dot_product_flops(int64_t tokens, int64_t qk_width, int64_t v_width);

// The projections of vanilla-style attention, registered on `owner` as "qkv"
// (D -> 3D, bias as model.attention.qkv_bias) and "out" (D -> D with bias).
struct QkvProjections {
  torch::nn::Linear qkv{nullptr}, out{nullptr};
  QkvProjections(torch::nn::Module& owner, int64_t dim, bool qkv_bias, double init_std);
  // x (B, N, D) -> q, k, v as (B, H, N, d) each.
  std::vector<torch::Tensor> heads(const torch::Tensor& x, int64_t heads);
};

// Normal(0, std) for weights, zeros for biases of a Linear.
void init_linear(torch::nn::Linear& linear, double std);

// Parameters of Linear(in, out) with or without its bias, without building it.
inline int64_t linear_parameters(int64_t in, int64_t out, bool bias = true) { return in * out + (bias ? out : 0); }
// Parameters of QkvProjections(dim, qkv_bias): qkv (D -> 3D) and out (D -> D, with bias).
inline int64_t qkv_projection_parameters(int64_t dim, bool qkv_bias) {
  return linear_parameters(dim, 3 * dim, qkv_bias) + linear_parameters(dim, dim);
}

}  // namespace repro
