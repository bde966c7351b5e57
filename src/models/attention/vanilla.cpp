// vanilla: multi-head scaled dot-product attention (Vaswani et al. 2017).
//
//   Q = x W_q, K = x W_k, V = x W_v          (B, N, D) each, split into H heads of d = D/H
//   A_h = softmax(Q_h K_h^T / sqrt(d))        (B, H, N, N), padded keys masked to -inf
//   y = concat_h(A_h V_h) W_o                 (B, N, D)
#include "models/attention/vanilla.h"

#include "models/attention/common.h"
#include "models/attention/map_probe.h"
#include "models/cpu_ops.h"

namespace repro {

namespace {

class VanillaAttention : public AttentionImpl {
 public:
  explicit VanillaAttention(const ModelOptions& o)
      : heads_(o.heads),
        dim_(o.dim),
        attn_dropout_(o.attn_dropout),
        proj_dropout_(o.dropout),
        fused_(o.attention.fused),
        proj_(*this, o.dim, o.attention.qkv_bias, o.init_std) {}

  double pairwise_flops(int64_t tokens) const override { return dot_product_flops(tokens, dim_, dim_); }

  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& padding_mask) override {
    const auto qkv = proj_.heads(x, heads_);  // q, k, v: (B, H, N, d)
    const double scale = 1.0 / std::sqrt(static_cast<double>(qkv[0].size(-1)));
    torch::Tensor maps;  // (B, H, N, N), under a probe only
    const auto y = scaled_dot_product(qkv[0], qkv[1], qkv[2], padding_mask, scale, attn_dropout_, is_training(), fused_,
                                      probed(maps));
    record_map(maps);
    return repro::dropout(linear(proj_.out, merge_heads(y)), proj_dropout_, is_training());  // (B, N, D)
  }

 private:
  int64_t heads_, dim_;
  double attn_dropout_, proj_dropout_;
  bool fused_;  // AttentionOptions::fused (model.attention.fused)
  QkvProjections proj_;
};

AttentionPtr make_vanilla(const ModelOptions& model, int64_t /*layer_index*/) {
  return std::make_shared<VanillaAttention>(model);
}

int64_t count_vanilla(const ModelOptions& o) { return qkv_projection_parameters(o.dim, o.attention.qkv_bias); }

}  // namespace

const AttentionEntry& vanilla_attention() {
  static const AttentionVariant variant =
      reading_shared_keys(make_variant<VanillaOptions>(
                              "vanilla", "multi-head scaled dot-product attention softmax(QK^T/sqrt(d))V", {}),
                          {"model.attention.qkv_bias"});
  static const AttentionEntry entry{&variant, make_vanilla, count_vanilla};
  return entry;
}

}  // namespace repro
