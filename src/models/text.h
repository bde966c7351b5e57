#pragma once
// Pre-norm Transformer encoder for text classification (Transformer, DIFF
// Transformer, DGT and the other variants on token ids).
#include <optional>

#include "models/block.h"
#include "models/model.h"

namespace repro {

class TextEncoderImpl : public ClassifierImpl {
 public:
  TextEncoderImpl(const ModelOptions& options, const DatasetInfo& info);
  torch::Tensor forward(const ModelInput& input) override;

 private:
  torch::nn::Embedding token_embed_{nullptr};
  torch::Tensor pos_embed_;
  std::optional<EncoderStack> stack_;  // built after the embeddings (parameter order)
  double emb_dropout_;
  Pool pool_;
};

}  // namespace repro
