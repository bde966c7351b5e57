// ViT: x (B, C, H, W) -> patches (B, P, D) by a stride-p convolution,
// prepend the class token, add learned positions (B, P+1, D), pre-norm blocks,
// final norm, linear head on the class token (or the token mean).
#include "models/vit.h"

#include "models/cpu_ops.h"

namespace repro {

VitImpl::VitImpl(const ModelOptions& o, const DatasetInfo& info) : emb_dropout_(o.emb_dropout), pool_(o.pool) {
  const int64_t patches = (info.height / o.patch) * (info.width / o.patch);
  const int64_t positions = std::max(patches + 1, o.max_len);
  // The patch convolution keeps LibTorch's default init (Kaiming-uniform weights and uniform bias).
  patch_embed_ = register_module(
      "patch_embed", torch::nn::Conv2d(torch::nn::Conv2dOptions(info.channels, o.dim, o.patch).stride(o.patch)));
  cls_token_ = register_parameter("cls_token", torch::randn({1, 1, o.dim}) * o.init_std);
  pos_embed_ = register_parameter("pos_embed", torch::randn({1, positions, o.dim}) * o.init_std);
  stack_.emplace(*this, o, info.num_classes);
}

torch::Tensor VitImpl::forward(const ModelInput& input) {
  auto x = patch_embed_(input.inputs).flatten(2).transpose(1, 2);  // (B, P, D)
  const auto cls = cls_token_.expand({x.size(0), 1, x.size(2)});   // (B, 1, D)
  x = torch::cat({cls, x}, 1);                                     // (B, P+1, D)
  x = x + pos_embed_.slice(1, 0, x.size(1));
  x = repro::dropout(x, emb_dropout_, is_training());
  x = stack_->encode(x, {});
  const auto pooled = pool_ == Pool::Mean ? x.mean(1) : x.select(1, 0);  // (B, D)
  return stack_->classify(pooled);                                       // (B, classes)
}

}  // namespace repro
