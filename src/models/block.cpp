#include "models/block.h"

#include "models/attention/common.h"
#include "models/attention/registry.h"
#include "models/ffn/registry.h"
#include "models/norm.h"

namespace repro {

AttentionOptions attention_options(const Config& config, int64_t layer_index) {
  AttentionOptions o;
  o.dim = config.integer("model.dim");
  o.heads = config.integer("model.heads");
  o.layer_index = layer_index;
  o.attn_dropout = config.real("model.attn_dropout");
  o.proj_dropout = config.real("model.dropout");
  o.qkv_bias = config.flag("model.attention.qkv_bias");
  o.init_std = config.real("model.init_std");
  o.config = &config;
  return o;
}

FeedForwardOptions ffn_options(const Config& config) {
  FeedForwardOptions o;
  o.dim = config.integer("model.dim");
  o.ratio = config.real("model.ffn.ratio");
  o.dropout = config.real("model.dropout");
  o.dropouts = config.integer("model.ffn.dropouts");
  o.init_std = config.real("model.init_std");
  o.inh_p = config.real("model.ffn.inh_p");
  return o;
}

EncoderBlockImpl::EncoderBlockImpl(const Config& config, int64_t layer_index) {
  const int64_t dim = config.integer("model.dim");
  const double eps = config.real("model.norm_eps");
  norm1_ = make_norm(config.text("model.norm"), dim, eps);
  norm2_ = make_norm(config.text("model.norm"), dim, eps);
  register_module("norm1", norm1_.ptr());
  attn_ = register_module("attn",
                          make_attention(config.text("model.attention.kind"), attention_options(config, layer_index)));
  register_module("norm2", norm2_.ptr());
  ffn_ = register_module("ffn", make_ffn(config.text("model.ffn.kind"), ffn_options(config)));
}

torch::Tensor EncoderBlockImpl::forward(const torch::Tensor& x, const torch::Tensor& padding_mask,
                                        torch::Tensor* maps) {
  auto h = x + attn_->forward(norm1_.forward(x), padding_mask, maps);  // (B, N, D)
  return h + ffn_->forward(norm2_.forward(h));
}

}  // namespace repro

namespace repro {

EncoderStack::EncoderStack(torch::nn::Module& owner, const Config& config, int64_t num_classes) {
  const int64_t dim = config.integer("model.dim");
  blocks_ = owner.register_module("blocks", torch::nn::ModuleList());
  for (int64_t i = 0; i < config.integer("model.depth"); ++i) blocks_->push_back(EncoderBlock(config, i));
  norm_ = make_norm(config.text("model.norm"), dim, config.real("model.norm_eps"));
  owner.register_module("norm", norm_.ptr());
  head_ = owner.register_module("head", torch::nn::Linear(dim, num_classes));
  init_linear(head_, config.real("model.init_std"));
}

torch::Tensor EncoderStack::encode(torch::Tensor x, const torch::Tensor& padding_mask,
                                   std::vector<torch::Tensor>* maps) {
  for (const auto& module : *blocks_) {
    torch::Tensor block_maps;
    x = module->as<EncoderBlockImpl>()->forward(x, padding_mask, maps ? &block_maps : nullptr);
    if (maps) maps->push_back(block_maps);
  }
  return norm_.forward(x);
}

}  // namespace repro
