#pragma once
// The one interface every attention variant implements, and what builds it.
#include <torch/torch.h>

#include "spec/config.h"

namespace repro {

struct AttentionOptions {
  int64_t dim = 0;          // D
  int64_t heads = 0;        // H
  int64_t layer_index = 0;  // 0-based depth of the block
  double attn_dropout = 0;  // on attention maps
  double proj_dropout = 0;  // after the output projection
  bool qkv_bias = true;
  double init_std = 0.02;
  const Config* config = nullptr;  // the variant's own spec keys
};

class AttentionImpl : public torch::nn::Module {
 public:
  // x: (B, N, D). padding_mask: (B, N) bool, true at padded positions, or undefined.
  // maps: when not null, receives the per-head attention maps (B, H, N, N).
  // Returns (B, N, D).
  virtual torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& padding_mask, torch::Tensor* maps) = 0;

  // Forward FLOPs (2 per multiply-add) per sequence of `tokens` tokens that the
  // linear layers do not account for: the (N x N) products (scores, maps x values)
  // and any other per-pair work. `repro bench` adds the linear layers itself.
  virtual double pairwise_flops(int64_t tokens) const = 0;
};

using AttentionPtr = std::shared_ptr<AttentionImpl>;

}  // namespace repro
