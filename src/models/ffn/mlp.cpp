// mlp: the Transformer / ViT feed-forward block.
//
//   h = dropout(GELU(x W_1 + b_1))        W_1: D -> round(ratio * D)
//   y = h W_2 + b_2 [then dropout]        W_2: round(ratio * D) -> D
#include "models/ffn/mlp.h"

#include <cmath>

#include "models/cpu_ops.h"

namespace repro {

namespace {

int64_t hidden_width(const FfnOptions& o) { return static_cast<int64_t>(std::llround(o.ratio * o.dim)); }

class Mlp : public TwoLayerFeedForward {
 public:
  explicit Mlp(const FfnOptions& o) : TwoLayerFeedForward(o, hidden_width(o), hidden_width(o)) {}

  torch::Tensor forward(const torch::Tensor& x) override {
    return project_out(repro::gelu(linear(fc1_, x)));  // (B, N, hidden) -> (B, N, D)
  }
};

}  // namespace

FeedForwardPtr make_mlp(const FfnOptions& options) { return std::make_shared<Mlp>(options); }

}  // namespace repro
