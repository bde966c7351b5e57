// Text encoder: ids (B, L) with 0 = padding -> token embeddings + learned
// positions (B, L, D) -> pre-norm blocks with the key-padding mask -> final norm
// -> pooled: position 0 (the tokenizer's <cls>) or the mean over real tokens
// -> linear head (B, classes).
#include "models/text.h"

#include "models/attention/common.h"
#include "models/cpu_ops.h"

namespace repro {

TextEncoderImpl::TextEncoderImpl(const ModelOptions& o, const DatasetInfo& info)
    : emb_dropout_(o.emb_dropout), pool_(o.pool) {
  const int64_t positions = o.max_len > 0 ? o.max_len : info.max_length;
  token_embed_ = register_module(
      "token_embed", torch::nn::Embedding(torch::nn::EmbeddingOptions(info.vocab_size, o.dim).padding_idx(0)));
  {
    torch::NoGradGuard no_grad;
    token_embed_->weight.normal_(0, o.init_std);
    token_embed_->weight[0].zero_();
  }
  pos_embed_ = register_parameter("pos_embed", torch::randn({1, positions, o.dim}) * o.init_std);
  stack_.emplace(*this, o, info.num_classes);
}

torch::Tensor TextEncoderImpl::forward(const ModelInput& input) {
  const auto& ids = input.inputs;                                                      // (B, L) int64
  const auto padding = input.padding_mask.defined() ? input.padding_mask : ids.eq(0);  // (B, L) bool
  auto x = token_embed_(ids) + pos_embed_.slice(1, 0, ids.size(1));                    // (B, L, D)
  x = repro::dropout(x, emb_dropout_, is_training());
  x = stack_->encode(x, padding);
  if (pool_ == Pool::Cls) return stack_->classify(x.select(1, 0));
  const auto real = padding.logical_not().unsqueeze(-1).to(x.scalar_type());  // (B, L, 1)
  const auto pooled = (x * real).sum(1) / real.sum(1).clamp_min(1.0);         // (B, D)
  return stack_->classify(pooled);
}

}  // namespace repro
