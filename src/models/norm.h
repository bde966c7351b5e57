#pragma once
// Normalization layers: LayerNorm (LibTorch's) and RMSNorm (not in LibTorch 1.13).
#include <torch/torch.h>

#include "spec/options.h"

namespace repro {

// y = x / sqrt(mean(x^2 over the last dim) + eps) * weight; weight initialised to 1.
class RMSNormImpl : public torch::nn::Module {
 public:
  RMSNormImpl(int64_t dim, double eps);
  torch::Tensor forward(const torch::Tensor& x);  // (..., dim) -> (..., dim)
  torch::Tensor weight;

 private:
  double eps_;
};
TORCH_MODULE(RMSNorm);

torch::nn::AnyModule make_norm(NormKind kind, int64_t dim, double eps);

}  // namespace repro
