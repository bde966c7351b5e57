#pragma once
// Pre-norm encoder block: x + attn(norm1(x)), then + ffn(norm2(x)).
#include <torch/torch.h>

#include "models/attention/attention.h"
#include "models/ffn/ffn.h"

namespace repro {

class EncoderBlockImpl : public torch::nn::Module {
 public:
  EncoderBlockImpl(const Config& config, int64_t layer_index);
  // x: (B, N, D); padding_mask: (B, N) bool or undefined; maps: optional (B, H, N, N) out.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& padding_mask, torch::Tensor* maps = nullptr);

 private:
  torch::nn::AnyModule norm1_, norm2_;
  AttentionPtr attn_;
  FeedForwardPtr ffn_;
};
TORCH_MODULE(EncoderBlock);

// The attention / feed-forward options a block builds from the spec.
AttentionOptions attention_options(const Config& config, int64_t layer_index);
FeedForwardOptions ffn_options(const Config& config);

}  // namespace repro
