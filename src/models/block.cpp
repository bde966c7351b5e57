#include "models/block.h"

#include "models/attention/common.h"
#include "models/attention/registry.h"
#include "models/ffn/registry.h"
#include "models/norm.h"

namespace repro {

EncoderBlockImpl::EncoderBlockImpl(const ModelOptions& o, int64_t layer_index)
    : post_norm_(o.norm_placement == NormPlacement::Post) {
  norm1_ = make_norm(o.norm, o.dim, o.norm_eps);
  norm2_ = make_norm(o.norm, o.dim, o.norm_eps);
  register_module("norm1", norm1_.ptr());
  attn_ = register_module("attn", make_attention(o, layer_index));
  register_module("norm2", norm2_.ptr());
  ffn_ = register_module("ffn", make_ffn(o));
}

torch::Tensor EncoderBlockImpl::forward(const torch::Tensor& x, const torch::Tensor& padding_mask) {
  if (post_norm_) {
    const auto h = norm1_.forward(x + attn_->forward(x, padding_mask));  // (B, N, D)
    return norm2_.forward(h + ffn_->forward(h));
  }
  auto h = x + attn_->forward(norm1_.forward(x), padding_mask);  // (B, N, D)
  return h + ffn_->forward(norm2_.forward(h));
}

}  // namespace repro

namespace repro {

EncoderStack::EncoderStack(torch::nn::Module& owner, const ModelOptions& o, int64_t num_classes) {
  blocks_ = owner.register_module("blocks", torch::nn::ModuleList());
  for (int64_t i = 0; i < o.depth; ++i) blocks_->push_back(EncoderBlock(o, i));
  norm_ = make_norm(o.norm, o.dim, o.norm_eps);
  owner.register_module("norm", norm_.ptr());
  head_ = owner.register_module("head", torch::nn::Linear(o.dim, num_classes));
  init_linear(head_, o.init_std);
}

torch::Tensor EncoderStack::encode(torch::Tensor x, const torch::Tensor& padding_mask) {
  for (const auto& module : *blocks_) x = module->as<EncoderBlockImpl>()->forward(x, padding_mask);
  return norm_.forward(x);
}

}  // namespace repro
