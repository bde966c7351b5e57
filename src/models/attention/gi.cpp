// gi: gate with inhibition on the query and key sides (giTransformer, Kang et al.;
// the authors' DeBERTa code for the defaults).
//
//   Q, K, V = x W_q, x W_k, x W_v                        (B, N, D)
//   S_k = GELU(x W_kg + b_kg) W_ki + b_ki                (B, N, D)   likewise S_q
//   thr_k = inh_p * max(S_k)                             max over the whole batch tensor (padded tokens
//                                                        excluded), or over each token's features
//   multiplicative (code):  K' = K * (GELU(S_k - thr_k) + 1)
//   additive (eq. 12):      K' = K + GELU(S_k - thr_k)
//   y = concat_h(softmax(Q'_h K'_h^T / sqrt(d)) V_h) W_o
// With W_ki = 0 and b_ki = 0 this is vanilla attention.
#include "models/attention/gi.h"

#include <limits>

#include "models/attention/common.h"
#include "models/attention/map_probe.h"
#include "models/cpu_ops.h"

namespace repro {

namespace {

class GiAttention : public AttentionImpl {
 public:
  explicit GiAttention(const ModelOptions& o) : GiAttention(o, o.attention.settings.as<GiOptions>()) {}

  GiAttention(const ModelOptions& o, const GiOptions& gi)
      : heads_(o.heads),
        dim_(o.dim),
        attn_dropout_(o.attn_dropout),
        proj_dropout_(o.dropout),
        inh_p_(gi.inh_p),
        multiplicative_(gi.combine == GiCombine::Multiplicative),
        per_token_(gi.max == GiMax::Token),
        detach_(gi.detach),
        fused_(o.attention.fused),
        proj_(*this, o.dim, o.attention.qkv_bias, o.init_std) {
    q_gate_ = register_module("q_gate", torch::nn::Linear(o.dim, o.dim));
    q_inhibit_ = register_module("q_inhibit", torch::nn::Linear(o.dim, o.dim));
    k_gate_ = register_module("k_gate", torch::nn::Linear(o.dim, o.dim));
    k_inhibit_ = register_module("k_inhibit", torch::nn::Linear(o.dim, o.dim));
    for (auto* linear : {&q_gate_, &q_inhibit_, &k_gate_, &k_inhibit_}) init_linear(*linear, o.init_std);
  }

  // The gated-with-inhibition version of `base` (B, N, D).
  torch::Tensor inhibit(const torch::Tensor& x, const torch::Tensor& base, torch::nn::Linear& gate,
                        torch::nn::Linear& inhibitor, const torch::Tensor& padding_mask) const {
    const auto s = linear(inhibitor, repro::gelu(linear(gate, x)));  // (B, N, D)
    // A token's own max needs no mask; the batch-wide max leaves padded tokens out (masking a
    // padded token's own features gave it a max of -inf and the step a NaN loss).
    auto for_max = s;
    if (padding_mask.defined() && !per_token_)
      for_max = s.masked_fill(padding_mask.unsqueeze(-1), -std::numeric_limits<double>::infinity());
    auto peak = per_token_ ? std::get<0>(for_max.max(-1, /*keepdim=*/true)) : for_max.max();  // (B, N, 1) or ()
    if (detach_) peak = peak.detach();
    const auto inhibition = repro::gelu(s - inh_p_ * peak);
    return multiplicative_ ? base * (inhibition + 1) : base + inhibition;
  }

  // As vanilla; the gate and inhibition layers are linear layers.
  double pairwise_flops(int64_t tokens) const override { return dot_product_flops(tokens, dim_, dim_); }

  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& padding_mask) override {
    const auto qkv = linear(proj_.qkv, x).chunk(3, -1);                                         // 3 x (B, N, D)
    const auto q = split_heads(inhibit(x, qkv[0], q_gate_, q_inhibit_, padding_mask), heads_);  // (B, H, N, d)
    const auto k = split_heads(inhibit(x, qkv[1], k_gate_, k_inhibit_, padding_mask), heads_);
    const auto v = split_heads(qkv[2], heads_);
    const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
    torch::Tensor maps;  // (B, H, N, N), under a probe only
    const auto y = scaled_dot_product(q, k, v, padding_mask, scale, attn_dropout_, is_training(), fused_, probed(maps));
    record_map(maps);
    return repro::dropout(linear(proj_.out, merge_heads(y)), proj_dropout_, is_training());
  }

 private:
  int64_t heads_, dim_;
  double attn_dropout_, proj_dropout_, inh_p_;
  bool multiplicative_, per_token_, detach_;
  bool fused_;  // AttentionOptions::fused (model.attention.fused)
  QkvProjections proj_;
  torch::nn::Linear q_gate_{nullptr}, q_inhibit_{nullptr}, k_gate_{nullptr}, k_inhibit_{nullptr};
};

AttentionPtr make_gi(const ModelOptions& model, int64_t /*layer_index*/) {
  return std::make_shared<GiAttention>(model);
}

// The projections, then q_gate, q_inhibit, k_gate, k_inhibit: D -> D with bias each.
int64_t count_gi(const ModelOptions& o) {
  return qkv_projection_parameters(o.dim, o.attention.qkv_bias) + 4 * linear_parameters(o.dim, o.dim);
}

}  // namespace

const EnumNames<GiCombine>& enum_names(GiCombine) {
  static const EnumNames<GiCombine> names = {{GiCombine::Multiplicative, "multiplicative"},
                                             {GiCombine::Additive, "additive"}};
  return names;
}
const EnumNames<GiMax>& enum_names(GiMax) {
  static const EnumNames<GiMax> names = {{GiMax::Batch, "batch"}, {GiMax::Token, "token"}};
  return names;
}

const AttentionEntry& gi_attention() {
  using O = GiOptions;
  static const AttentionVariant variant = reading_shared_keys(make_variant<O>(
      "gi", "gate with inhibition on Q and K: K * (GELU(S - inh_p max S) + 1) (giTransformer)",
      {
          key("model.attention.inh_p", &O::inh_p, 0, 0.99,
              "gi: inhibition level inh_p (the paper uses 0, 0.1, 0.3, 0.9)."),
          key("model.attention.gi_combine", &O::combine,
              "gi: K' = K * (GELU(S - thr) + 1) as the authors' code, or K' = K + GELU(S - thr) as the paper's eq. "
              "12 (same for Q)."),
          key("model.attention.gi_max", &O::max,
              "gi: thr = inh_p * max(S) over the whole batch tensor (the code; padded tokens excluded) or over each "
              "token's features."),
          key("model.attention.gi_detach", &O::detach,
              "gi: stop gradients through the threshold max(S) (the code does not)."),
      }),
      {"model.attention.qkv_bias"});
  static const AttentionEntry entry{&variant, make_gi, count_gi};
  return entry;
}

}  // namespace repro
