// swiglu: SwiGLU feed-forward (Shazeer 2020), read as the DGSA paper's Table 5
// parameter counts require (the x4 - x2 difference is 1.58M at D = 256, 8 layers).
//
//   [a, b] = x W_1 + b_1        W_1: D -> e*D, split into value a and gate b, each (e/2)*D
//   h = dropout(a * SiLU(b))
//   y = h W_2 + b_2 [then dropout]   W_2: (e/2)*D -> D
#include "models/ffn/swiglu.h"

#include <cmath>

#include "models/cpu_ops.h"

namespace repro {

namespace {

int64_t half_width(const ModelOptions& o) { return static_cast<int64_t>(std::llround(o.ffn.ratio * o.dim / 2)); }

class SwiGlu : public TwoLayerFeedForward {
 public:
  explicit SwiGlu(const ModelOptions& o) : TwoLayerFeedForward(o, 2 * half_width(o), half_width(o)) {}

  torch::Tensor forward(const torch::Tensor& x) override {
    const auto parts = linear(fc1_, x).chunk(2, -1);       // value, gate: 2 x (B, N, e*D/2)
    return project_out(parts[0] * torch::silu(parts[1]));  // (B, N, D)
  }
};

}  // namespace

FeedForwardPtr make_swiglu(const ModelOptions& model) { return std::make_shared<SwiGlu>(model); }

int64_t count_swiglu(const ModelOptions& o) {
  const int64_t half = half_width(o);
  return (o.dim * 2 * half + 2 * half) + (half * o.dim + o.dim);
}

}  // namespace repro
