// mlp: the Transformer / ViT feed-forward block.
//
//   h = dropout(GELU(x W_1 + b_1))        W_1: D -> round(ratio * D)
//   y = h W_2 + b_2 [then dropout]        W_2: round(ratio * D) -> D
#include "models/ffn/mlp.h"

#include <cmath>

#include "models/attention/common.h"

namespace repro {

namespace {

class Mlp : public FeedForwardImpl {
 public:
  explicit Mlp(const FeedForwardOptions& o) : dropout_(o.dropout), dropouts_(o.dropouts) {
    const auto hidden = static_cast<int64_t>(std::llround(o.ratio * o.dim));
    fc1_ = register_module("fc1", torch::nn::Linear(o.dim, hidden));
    fc2_ = register_module("fc2", torch::nn::Linear(hidden, o.dim));
    init_linear(fc1_, o.init_std);
    init_linear(fc2_, o.init_std);
  }

  torch::Tensor forward(const torch::Tensor& x) override {
    auto h = torch::dropout(torch::gelu(fc1_(x)), dropout_, is_training());  // (B, N, hidden)
    auto y = fc2_(h);                                                      // (B, N, D)
    return dropouts_ >= 2 ? torch::dropout(y, dropout_, is_training()) : y;
  }

 private:
  double dropout_;
  int64_t dropouts_;
  torch::nn::Linear fc1_{nullptr}, fc2_{nullptr};
};

}  // namespace

FeedForwardPtr make_mlp(const FeedForwardOptions& options) { return std::make_shared<Mlp>(options); }

}  // namespace repro
