#pragma once
// Transformer encoder for text classification (Transformer, DIFF Transformer,
// DGT and the other variants on token ids).
#include <optional>

#include "models/block.h"
#include "models/model.h"

namespace repro {

// The fixed positions of Vaswani et al. (2017), 3.5: (1, positions, D) with
// P[p, 2i] = sin(p / 10000^(2i/D)) and P[p, 2i + 1] = cos(p / 10000^(2i/D)).
torch::Tensor sinusoidal_positions(int64_t positions, int64_t dim);

class TextEncoderImpl : public ClassifierImpl {
 public:
  TextEncoderImpl(const ModelOptions& options, const DatasetInfo& info);
  torch::Tensor forward(const ModelInput& input) override;

 private:
  double embed_scale_;  // 1 with learned positions; sqrt(D) with sinusoidal ones (Vaswani et al. 2017, 3.4)
  torch::nn::Embedding token_embed_{nullptr};
  torch::Tensor pos_embed_;
  std::optional<EncoderStack> stack_;  // built after the embeddings (parameter order)
  double emb_dropout_;
  Pool pool_;
};

}  // namespace repro
