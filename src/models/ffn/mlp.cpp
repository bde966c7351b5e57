// mlp: the Transformer / ViT feed-forward block.
//
//   h = dropout(GELU(x W_1 + b_1))        W_1: D -> round(ratio * D)
//   y = h W_2 + b_2 [then dropout]        W_2: round(ratio * D) -> D
#include "models/ffn/mlp.h"

#include <cmath>

#include "models/cpu_ops.h"

namespace repro {

namespace {

class Mlp : public TwoLayerFeedForward {
 public:
  explicit Mlp(const ModelOptions& o) : TwoLayerFeedForward(o, expanded_width(o), expanded_width(o)) {}

  torch::Tensor forward(const torch::Tensor& x) override {
    return project_out(repro::gelu(linear(fc1_, x)));  // (B, N, hidden) -> (B, N, D)
  }
};

}  // namespace

FeedForwardPtr make_mlp(const ModelOptions& model) { return std::make_shared<Mlp>(model); }

int64_t count_mlp(const ModelOptions& o) {
  const int64_t hidden = expanded_width(o);
  return (o.dim * hidden + hidden) + (hidden * o.dim + o.dim);
}

}  // namespace repro
