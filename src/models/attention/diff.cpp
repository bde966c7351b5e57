// diff: differential attention (Ye et al. 2024), as the official code
// (microsoft/unilm Diff-Transformer/multihead_diffattn.py).
//
//   [Q1; Q2] = x W_q, [K1; K2] = x W_k, V = x W_v        heads: 2h of width d for Q, K; h of 2d for V
//   A_i = softmax(Q_i K_i^T / sqrt(d))                      (B, h, N, N), i = 1, 2
//   lambda = exp(<lq1, lk1>) - exp(<lq2, lk2>) + lambda_init   one scalar per layer; vectors in R^d ~ N(0, 0.1)
//   O = (A1 - lambda A2) V = A1 V - lambda A2 V             (B, h, N, 2d): two fused calls
//   y = concat_h((1 - lambda_init) RMSNorm(O_h)) W_o        (B, N, D)
// Map rows sum to 1 - lambda.
#include "models/attention/diff.h"

#include "models/attention/map_probe.h"
#include "models/cpu_ops.h"

namespace repro {

namespace {

class DiffAttention : public AttentionImpl {
 public:
  DiffAttention(const ModelOptions& o, int64_t layer_index)
      : core_(*this, o, o.attention.settings.as<DiffOptions>().layout, layer_index, /*halve_heads=*/true),
        proj_dropout_(o.dropout) {
    const int64_t d = core_.head_dim();
    lambda_q1_ = register_parameter("lambda_q1", torch::randn({d}) * 0.1);
    lambda_k1_ = register_parameter("lambda_k1", torch::randn({d}) * 0.1);
    lambda_q2_ = register_parameter("lambda_q2", torch::randn({d}) * 0.1);
    lambda_k2_ = register_parameter("lambda_k2", torch::randn({d}) * 0.1);
  }

  double pairwise_flops(int64_t tokens) const override { return core_.pairwise_flops(tokens); }

  torch::Tensor lambda() const {  // () scalar
    return torch::exp((lambda_q1_ * lambda_k1_).sum()) - torch::exp((lambda_q2_ * lambda_k2_).sum()) +
           core_.lambda_init();
  }

  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& padding_mask) override {
    const DiffStreams s = core_.project(x);
    const DiffAttended a = core_.attend(s, padding_mask, is_training());
    const auto &o1 = a.out1, &o2 = a.out2;
    const auto lam = lambda().to(o1.scalar_type());
    if (a.map1.defined()) record_map(a.map1 - lam * a.map2);  // (B, h, N, N), under a probe
    const auto y = core_.finish(o1 - lam * o2);               // (B, N, D)
    return repro::dropout(y, proj_dropout_, is_training());
  }

 private:
  DiffCore core_;
  double proj_dropout_;
  torch::Tensor lambda_q1_, lambda_k1_, lambda_q2_, lambda_k2_;
};

AttentionPtr make_diff(const ModelOptions& model, int64_t layer_index) {
  return std::make_shared<DiffAttention>(model, layer_index);
}

// The differential core, then lambda_q1, lambda_k1, lambda_q2, lambda_k2 (d each).
int64_t count_diff(const ModelOptions& o) {
  const DiffLayoutOptions& layout = o.attention.settings.as<DiffOptions>().layout;
  const int64_t d = o.dim / (2 * differential_heads(o, layout, /*halve_by_default=*/true));
  return diff_core_parameters(o, layout, /*halve_heads=*/true) + 4 * d;
}

}  // namespace

const AttentionEntry& diff_attention() {
  static const AttentionVariant variant = make_variant<DiffOptions>(
      "diff", "differential attention (A1 - lambda A2)V, per-head RMSNorm x (1 - lambda_init) (Ye et al. 2024)",
      keys_of_part(&DiffOptions::layout, diff_layout_keys()));
  static const AttentionEntry entry{&variant, make_diff, count_diff};
  return entry;
}

}  // namespace repro
