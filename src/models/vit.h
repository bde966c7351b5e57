#pragma once
// Pre-norm Vision Transformer (Dosovitskiy et al. 2020) with pluggable attention
// and feed-forward kinds.
#include <optional>

#include "models/block.h"
#include "models/model.h"

namespace repro {

class VitImpl : public ClassifierImpl {
 public:
  VitImpl(const ModelOptions& options, const DatasetInfo& info);
  torch::Tensor forward(const ModelInput& input) override;

 private:
  torch::nn::Conv2d patch_embed_{nullptr};
  torch::Tensor cls_token_, pos_embed_;
  std::optional<EncoderStack> stack_;  // built after the embeddings (parameter order)
  double emb_dropout_;
  Pool pool_;
};

}  // namespace repro
