// swiglu: SwiGLU feed-forward (Shazeer 2020), read as the DGSA paper's Table 5
// parameter counts require (the x4 - x2 difference is 1.58M at D = 256, 8 layers).
//
//   [a, b] = x W_1 + b_1        W_1: D -> e*D, split into value a and gate b, each (e/2)*D
//   h = dropout(a * SiLU(b))
//   y = h W_2 + b_2 [then dropout]   W_2: (e/2)*D -> D
#include "models/ffn/swiglu.h"

#include <cmath>

#include "models/attention/common.h"

namespace repro {

namespace {

class SwiGlu : public FeedForwardImpl {
 public:
  explicit SwiGlu(const FeedForwardOptions& o) : dropout_(o.dropout), dropouts_(o.dropouts) {
    const auto half = static_cast<int64_t>(std::llround(o.ratio * o.dim / 2));
    fc1_ = register_module("fc1", torch::nn::Linear(o.dim, 2 * half));
    fc2_ = register_module("fc2", torch::nn::Linear(half, o.dim));
    init_linear(fc1_, o.init_std);
    init_linear(fc2_, o.init_std);
  }

  torch::Tensor forward(const torch::Tensor& x) override {
    const auto parts = fc1_(x).chunk(2, -1);                                            // 2 x (B, N, e*D/2)
    const auto h = torch::dropout(parts[0] * torch::silu(parts[1]), dropout_, is_training());
    const auto y = fc2_(h);                                                              // (B, N, D)
    return dropouts_ >= 2 ? torch::dropout(y, dropout_, is_training()) : y;
  }

 private:
  double dropout_;
  int64_t dropouts_;
  torch::nn::Linear fc1_{nullptr}, fc2_{nullptr};
};

}  // namespace

FeedForwardPtr make_swiglu(const FeedForwardOptions& options) { return std::make_shared<SwiGlu>(options); }

}  // namespace repro
