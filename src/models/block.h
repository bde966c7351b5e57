#pragma once
// Encoder block. Pre-norm (model.norm_placement: pre): h = x + attn(norm1(x)), h + ffn(norm2(h)).
// Post-norm (post): h = norm1(x + attn(x)), norm2(h + ffn(h)).
#include <torch/torch.h>

#include "models/attention/attention.h"
#include "models/ffn/ffn.h"

namespace repro {

class EncoderBlockImpl : public torch::nn::Module {
 public:
  EncoderBlockImpl(const ModelOptions& options, int64_t layer_index);
  // x: (B, N, D); padding_mask: (B, N) bool or undefined.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& padding_mask);

 private:
  torch::nn::AnyModule norm1_, norm2_;
  bool post_norm_;
  AttentionPtr attn_;
  FeedForwardPtr ffn_;
};
TORCH_MODULE(EncoderBlock);

// What ViT and the text encoder share: options.depth blocks, the final norm and
// the linear head, registered on the owning model as "blocks", "norm" and "head".
class EncoderStack {
 public:
  EncoderStack(torch::nn::Module& owner, const ModelOptions& options, int64_t num_classes);
  // (B, N, D) -> blocks -> final norm -> (B, N, D) (under an AttentionMapProbe, one map per block is recorded).
  torch::Tensor encode(torch::Tensor x, const torch::Tensor& padding_mask);
  torch::Tensor classify(const torch::Tensor& pooled) { return head_(pooled); }  // (B, D) -> (B, classes)

 private:
  torch::nn::ModuleList blocks_;
  torch::nn::AnyModule norm_;
  torch::nn::Linear head_{nullptr};
};

}  // namespace repro
