// vanilla: multi-head scaled dot-product attention (Vaswani et al. 2017).
//
//   Q = x W_q, K = x W_k, V = x W_v          (B, N, D) each, split into H heads of d = D/H
//   A_h = softmax(Q_h K_h^T / sqrt(d))        (B, H, N, N), padded keys masked to -inf
//   y = concat_h(A_h V_h) W_o                 (B, N, D)
#include "models/attention/vanilla.h"

#include "models/attention/common.h"

namespace repro {

namespace {

class VanillaAttention : public AttentionImpl {
 public:
  explicit VanillaAttention(const AttentionOptions& o)
      : heads_(o.heads), attn_dropout_(o.attn_dropout), proj_dropout_(o.proj_dropout) {
    qkv_ = register_module("qkv", torch::nn::Linear(torch::nn::LinearOptions(o.dim, 3 * o.dim).bias(o.qkv_bias)));
    out_ = register_module("out", torch::nn::Linear(o.dim, o.dim));
    init_linear(qkv_, o.init_std);
    init_linear(out_, o.init_std);
  }

  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& padding_mask, torch::Tensor* maps) override {
    const auto qkv = qkv_(x).chunk(3, -1);        // 3 x (B, N, D)
    const auto q = split_heads(qkv[0], heads_);  // (B, H, N, d)
    const auto k = split_heads(qkv[1], heads_);
    const auto v = split_heads(qkv[2], heads_);
    const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
    const auto y = scaled_dot_product(q, k, v, padding_mask, scale, attn_dropout_, is_training(), maps);
    return torch::dropout(out_(merge_heads(y)), proj_dropout_, is_training());  // (B, N, D)
  }

 private:
  int64_t heads_;
  double attn_dropout_, proj_dropout_;
  torch::nn::Linear qkv_{nullptr}, out_{nullptr};
};

}  // namespace

AttentionPtr make_vanilla_attention(const AttentionOptions& options) {
  return std::make_shared<VanillaAttention>(options);
}

}  // namespace repro
