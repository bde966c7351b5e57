#include "models/norm.h"

#include "util/error.h"

namespace repro {

RMSNormImpl::RMSNormImpl(int64_t dim, double eps) : eps_(eps) {
  weight = register_parameter("weight", torch::ones({dim}));
}

torch::Tensor RMSNormImpl::forward(const torch::Tensor& x) {
  const auto x32 = x.to(torch::kFloat32);
  const auto normed = x32 * torch::rsqrt(x32.pow(2).mean(-1, /*keepdim=*/true) + eps_);
  return normed.to(x.scalar_type()) * weight;
}

torch::nn::AnyModule make_norm(const std::string& kind, int64_t dim, double eps) {
  if (kind == "layernorm")
    return torch::nn::AnyModule(torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim}).eps(eps)));
  if (kind == "rmsnorm") return torch::nn::AnyModule(RMSNorm(dim, eps));
  throw Error("unknown norm '" + kind + "'");
}

}  // namespace repro
