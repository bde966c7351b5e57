// Text encoder: ids (B, L) with 0 = padding -> token embeddings + positions (learned, or fixed sines with the
// embeddings scaled by sqrt(D)) (B, L, D) -> blocks with the key-padding mask -> final norm -> pooled: position 0
// (the tokenizer's <cls>) or the mean over real tokens -> linear head (B, classes).
#include "models/text.h"

#include <cmath>

#include "models/attention/common.h"
#include "models/cpu_ops.h"

namespace repro {

torch::Tensor sinusoidal_positions(int64_t positions, int64_t dim) {
  const auto position = torch::arange(positions, torch::kFloat64).unsqueeze(1);  // (P, 1)
  const auto even = torch::arange(0, dim, 2, torch::kFloat64);                   // (ceil(D/2),) = 2i
  const auto angle = position * torch::exp(even * (-std::log(10000.0) / static_cast<double>(dim)));  // (P, D/2)
  auto table = torch::zeros({positions, dim}, torch::kFloat64);
  table.slice(1, 0, dim, 2).copy_(angle.sin());
  table.slice(1, 1, dim, 2).copy_(angle.slice(1, 0, dim / 2).cos());
  return table.to(torch::kFloat32).unsqueeze(0);  // (1, P, D)
}

TextEncoderImpl::TextEncoderImpl(const ModelOptions& o, const DatasetInfo& info)
    : embed_scale_(o.positions == Positions::Sinusoidal ? std::sqrt(static_cast<double>(o.dim)) : 1.0),
      emb_dropout_(o.emb_dropout),
      pool_(o.pool) {
  const int64_t positions = o.max_len > 0 ? o.max_len : info.max_length;
  token_embed_ = register_module(
      "token_embed", torch::nn::Embedding(torch::nn::EmbeddingOptions(info.vocab_size, o.dim).padding_idx(0)));
  {
    torch::NoGradGuard no_grad;
    token_embed_->weight.normal_(0, o.init_std);
    token_embed_->weight[0].zero_();
  }
  if (o.positions == Positions::Sinusoidal)  // fixed: a buffer, saved with the weights but never trained
    pos_embed_ = register_buffer("pos_embed", sinusoidal_positions(positions, o.dim));
  else
    pos_embed_ = register_parameter("pos_embed", torch::randn({1, positions, o.dim}) * o.init_std);
  stack_.emplace(*this, o, info.num_classes);
}

torch::Tensor TextEncoderImpl::forward(const ModelInput& input) {
  const auto& ids = input.inputs;                                                      // (B, L) int64
  const auto padding = input.padding_mask.defined() ? input.padding_mask : ids.eq(0);  // (B, L) bool
  auto tokens = token_embed_(ids);                                                     // (B, L, D)
  if (embed_scale_ != 1.0) tokens = tokens * embed_scale_;
  auto x = tokens + pos_embed_.slice(1, 0, ids.size(1));  // (B, L, D)
  x = repro::dropout(x, emb_dropout_, is_training());
  x = stack_->encode(x, padding);
  if (pool_ == Pool::Cls) return stack_->classify(x.select(1, 0));
  const auto real = padding.logical_not().unsqueeze(-1).to(x.scalar_type());  // (B, L, 1)
  const auto pooled = (x * real).sum(1) / real.sum(1).clamp_min(1.0);         // (B, D)
  return stack_->classify(pooled);
}

}  // namespace repro
