#include "models/attention/common.h"

#include <limits>

#include "models/attention/map_probe.h"
#include "models/cpu_ops.h"

namespace repro {

double dot_product_flops(int64_t tokens, int64_t qk_width, int64_t v_width) {
  const double pairs = static_cast<double>(tokens) * static_cast<double>(tokens);
  return 2.0 * pairs * static_cast<double>(qk_width + v_width);
}

torch::Tensor split_heads(const torch::Tensor& x, int64_t heads) {
  const int64_t B = x.size(0), N = x.size(1);
  return x.view({B, N, heads, -1}).transpose(1, 2);
}

torch::Tensor merge_heads(const torch::Tensor& x) {
  const int64_t B = x.size(0), N = x.size(2);
  return x.transpose(1, 2).reshape({B, N, -1});
}

torch::Tensor additive_key_mask(const torch::Tensor& padding_mask, torch::ScalarType dtype) {
  if (!padding_mask.defined()) return {};
  const auto mask =
      torch::zeros(padding_mask.sizes(), torch::TensorOptions().dtype(dtype).device(padding_mask.device()));
  return mask.masked_fill(padding_mask, -std::numeric_limits<double>::infinity()).unsqueeze(1).unsqueeze(1);
}

torch::Tensor attention_logits(const torch::Tensor& q, const torch::Tensor& k, double scale) {
  return batched_matmul(q, k.transpose(-2, -1)) * scale;  // (B, H, N, N)
}

torch::Tensor without_padded_keys(const torch::Tensor& maps, const torch::Tensor& padding_mask) {
  if (!padding_mask.defined()) return maps;
  return maps.masked_fill(padding_mask.unsqueeze(1).unsqueeze(1), 0.0);  // (B, 1, 1, N) over (B, H, N, N)
}

torch::Tensor map_times_values(const torch::Tensor& maps, const torch::Tensor& v, double dropout, bool training) {
  record_map(maps);  // only under an AttentionMapProbe
  const double p = training ? dropout : 0.0;
  return batched_matmul(p > 0 ? repro::dropout(maps, p, true) : maps, v);
}

torch::Tensor attention_maps(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& padding_mask,
                             double scale) {
  auto logits = attention_logits(q, k, scale);  // (B, H, N, N)
  if (padding_mask.defined()) logits = logits + additive_key_mask(padding_mask, logits.scalar_type());
  return torch::softmax(logits, -1);
}

torch::Tensor scaled_dot_product(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                                 const torch::Tensor& padding_mask, double scale, double dropout, bool training,
                                 bool fused, torch::Tensor* maps) {
  const double p = training ? dropout : 0.0;
#if TORCH_VERSION_MAJOR >= 2
  // The fused kernel draws its dropout from LibTorch's default generator, which no run owns: with dropout on the
  // maps (p > 0) the explicit path runs, its mask from the run's generator (models/cpu_ops.h, data/random.h).
  if (fused && !maps && p == 0) {
    // No mask is an empty optional: LibTorch 2.x refuses an undefined tensor ("attn_mask dtype ... nullptr").
    c10::optional<torch::Tensor> keep;  // (B, 1, 1, N) bool, true = attend
    if (padding_mask.defined()) keep = padding_mask.logical_not().unsqueeze(1).unsqueeze(1);
    return at::scaled_dot_product_attention(q, k, v, keep, p, /*is_causal=*/false, scale);
  }
#endif
  auto a = attention_maps(q, k, padding_mask, scale);  // (B, H, N, N)
  if (maps) *maps = a;
  if (p > 0) a = repro::dropout(a, p, true);
  return batched_matmul(a, v);
}

QkvProjections::QkvProjections(torch::nn::Module& owner, int64_t dim, bool qkv_bias, double init_std) {
  qkv = owner.register_module("qkv", torch::nn::Linear(torch::nn::LinearOptions(dim, 3 * dim).bias(qkv_bias)));
  out = owner.register_module("out", torch::nn::Linear(dim, dim));
  init_linear(qkv, init_std);
  init_linear(out, init_std);
}

std::vector<torch::Tensor> QkvProjections::heads(const torch::Tensor& x, int64_t heads) {
  auto parts = linear(qkv, x).chunk(3, -1);  // 3 x (B, N, D)
  for (auto& part : parts) part = split_heads(part, heads);
  return parts;
}

void init_linear(torch::nn::Linear& linear, double std) {
  torch::NoGradGuard no_grad;
  linear->weight.normal_(0, std);
  if (linear->bias.defined()) linear->bias.zero_();
}

}  // namespace repro
