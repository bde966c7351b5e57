#include "models/norm.h"

namespace repro {

RMSNormImpl::RMSNormImpl(int64_t dim, double eps) : eps_(eps) {
  weight = register_parameter("weight", torch::ones({dim}));
}

torch::Tensor RMSNormImpl::forward(const torch::Tensor& x) {
  // Low-precision inputs (bf16, fp16) are normalised in float32; float32/64 as they are.
  const bool widen = x.scalar_type() != torch::kFloat64 && x.scalar_type() != torch::kFloat32;
  const auto wide = widen ? x.to(torch::kFloat32) : x;
  const auto normed = wide * torch::rsqrt(wide.pow(2).mean(-1, /*keepdim=*/true) + eps_);
  return normed.to(x.scalar_type()) * weight;
}

torch::nn::AnyModule make_norm(NormKind kind, int64_t dim, double eps) {
  if (kind == NormKind::RmsNorm) return torch::nn::AnyModule(RMSNorm(dim, eps));
  return torch::nn::AnyModule(torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim}).eps(eps)));
}

}  // namespace repro
