// plug: pairwise logit gating (PLuG attention, §3.1).
//
//   Q, K, V = x W_q, x W_k, x W_v                     (B, H, N, d) as vanilla
//   Q_g = x W_qg, K_g = x W_kg                        (B, 1, N, d_g), d_g = fraction * d (head-shared; or H of them)
//   R = Q_g K_g^T / sqrt(d_g)                         (B, 1 | H, N, N)
//   GML (Table 4): E [g_A, g_B] = R w + b (1 -> 2), G = act(g_A * g_B)
//                  A G = act(R); B act(g_A + g_B); C act(w R + b); D MLP 1 -> hidden -> 2 (GELU), act(g_A * g_B)
//   pre-softmax:  P = softmax(A_main * (1 + G))       A_main = Q K^T / sqrt(d); G broadcast over heads
//   post-softmax: P = softmax(A_main) * (1 + G)       (Table 10); without the residual, (1 + G) -> G (Table 11)
//   y = concat_h(P V) W_o
// Padded keys are masked after the modulation, so they get no weight.
#include "models/attention/plug.h"

#include <cmath>
#include <limits>

#include "models/attention/common.h"
#include "models/attention/map_probe.h"
#include "models/cpu_ops.h"

namespace repro {

namespace {

torch::Tensor bound(const torch::Tensor& x, PlugActivation activation) {
  switch (activation) {
    case PlugActivation::Tanh:
      return torch::tanh(x);
    case PlugActivation::Softsign:
      return x / (1 + x.abs());
    case PlugActivation::Hardtanh:
      return torch::clamp(x, -1, 1);
    case PlugActivation::None:
      break;
  }
  return x;
}

// d_g: the gating width, a fraction of the head width (at least 1).
int64_t gate_width(const ModelOptions& o, const PlugOptions& plug) {
  return std::max<int64_t>(1, std::llround(plug.fraction * static_cast<double>(o.dim / o.heads)));
}

class PlugAttention : public AttentionImpl {
 public:
  explicit PlugAttention(const ModelOptions& o) : PlugAttention(o, o.attention.settings.as<PlugOptions>()) {}

  PlugAttention(const ModelOptions& o, const PlugOptions& plug)
      : heads_(o.heads),
        dim_(o.dim),
        gate_dim_(gate_width(o, plug)),
        gate_heads_(plug.head_specific ? o.heads : 1),
        gml_hidden_(plug.gml == PlugGml::D ? plug.hidden : 0),
        attn_dropout_(o.attn_dropout),
        proj_dropout_(o.dropout),
        gml_(plug.gml),
        activation_(plug.activation),
        post_(plug.position == PlugPosition::Post),
        residual_(plug.residual),
        proj_(*this, o.dim, o.attention.qkv_bias, o.init_std) {
    gate_qk_ = register_module(
        "gate_qk",
        torch::nn::Linear(torch::nn::LinearOptions(o.dim, 2 * gate_heads_ * gate_dim_).bias(o.attention.qkv_bias)));
    init_linear(gate_qk_, o.init_std);
    const int64_t factors = gml_ == PlugGml::C ? 1 : 2;
    if (gml_ == PlugGml::D) {
      gml_in_ = register_module("gml_in", torch::nn::Linear(1, gml_hidden_));
      gml_out_ = register_module("gml_out", torch::nn::Linear(gml_hidden_, 2));
    } else if (gml_ != PlugGml::A) {
      gml_out_ = register_module("gml_out", torch::nn::Linear(1, factors));
    }
  }

  // The gating coefficients G: (B, 1 | H, N, N).
  torch::Tensor gate(const torch::Tensor& x) {
    const auto qk = linear(gate_qk_, x).chunk(2, -1);
    const auto qg = split_heads(qk[0], gate_heads_), kg = split_heads(qk[1], gate_heads_);  // (B, Hg, N, d_g)
    const auto r = batched_matmul(qg, kg.transpose(-2, -1)) / std::sqrt(static_cast<double>(gate_dim_));
    if (gml_ == PlugGml::A) return bound(r, activation_);
    auto h = r.unsqueeze(-1);  // (B, Hg, N, N, 1)
    if (gml_ == PlugGml::D) h = repro::gelu(gml_in_(h));
    const auto factors = gml_out_(h);  // (B, Hg, N, N, 1 | 2)
    if (gml_ == PlugGml::C) return bound(factors.squeeze(-1), activation_);
    const auto a = factors.select(-1, 0), b = factors.select(-1, 1);
    return bound(gml_ == PlugGml::B ? a + b : a * b, activation_);
  }

  // Vanilla's products, plus R = Q_g K_g^T and the per-pair GML layers (per gate head and pair:
  // E/B 1 -> 2, C 1 -> 1, D 1 -> hidden -> 2; A none).
  double pairwise_flops(int64_t tokens) const override {
    const double pairs = static_cast<double>(gate_heads_) * static_cast<double>(tokens) * static_cast<double>(tokens);
    const double gml = gml_ == PlugGml::A   ? 0
                       : gml_ == PlugGml::C ? 2
                       : gml_ == PlugGml::D ? 2.0 * gml_hidden_ + 4.0 * gml_hidden_
                                            : 4;
    return dot_product_flops(tokens, dim_, dim_) + pairs * (2.0 * static_cast<double>(gate_dim_) + gml);
  }

  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& padding_mask) override {
    const auto qkv = proj_.heads(x, heads_);  // q, k, v: (B, H, N, d)
    const auto &q = qkv[0], &k = qkv[1], &v = qkv[2];
    const auto modulation = residual_ ? 1 + gate(x) : gate(x);  // (B, 1 | H, N, N)
    auto logits = batched_matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(q.size(-1)));  // (B, H, N, N)
    if (!post_) logits = logits * modulation;
    if (padding_mask.defined()) logits = logits + additive_key_mask(padding_mask, logits.scalar_type());
    auto p = torch::softmax(logits, -1);
    if (post_) p = p * modulation;
    record_map(p);  // under a probe
    if (is_training() && attn_dropout_ > 0) p = repro::dropout(p, attn_dropout_, true);
    const auto y = linear(proj_.out, merge_heads(batched_matmul(p, v)));  // (B, N, D)
    return repro::dropout(y, proj_dropout_, is_training());
  }

 private:
  int64_t heads_, dim_, gate_dim_, gate_heads_, gml_hidden_;
  double attn_dropout_, proj_dropout_;
  PlugGml gml_;
  PlugActivation activation_;
  bool post_, residual_;
  QkvProjections proj_;
  torch::nn::Linear gate_qk_{nullptr}, gml_in_{nullptr}, gml_out_{nullptr};
};

AttentionPtr make_plug(const ModelOptions& model, int64_t /*layer_index*/) {
  return std::make_shared<PlugAttention>(model);
}

// The projections, gate_qk (D -> 2 Hg d_g), and the Gating Modulation Layer's weights.
int64_t count_plug(const ModelOptions& o) {
  const auto& plug = o.attention.settings.as<PlugOptions>();
  const int64_t gate_heads = plug.head_specific ? o.heads : 1;
  int64_t gml = 0;
  if (plug.gml == PlugGml::D)
    gml = linear_parameters(1, plug.hidden) + linear_parameters(plug.hidden, 2);
  else if (plug.gml != PlugGml::A)
    gml = linear_parameters(1, plug.gml == PlugGml::C ? 1 : 2);
  return qkv_projection_parameters(o.dim, o.attention.qkv_bias) +
         linear_parameters(o.dim, 2 * gate_heads * gate_width(o, plug), o.attention.qkv_bias) + gml;
}

}  // namespace

const EnumNames<PlugGml>& enum_names(PlugGml) {
  static const EnumNames<PlugGml> names = {
      {PlugGml::A, "A"}, {PlugGml::B, "B"}, {PlugGml::C, "C"}, {PlugGml::D, "D"}, {PlugGml::E, "E"}};
  return names;
}
const EnumNames<PlugActivation>& enum_names(PlugActivation) {
  static const EnumNames<PlugActivation> names = {{PlugActivation::Tanh, "tanh"},
                                                  {PlugActivation::Softsign, "softsign"},
                                                  {PlugActivation::Hardtanh, "hardtanh"},
                                                  {PlugActivation::None, "none"}};
  return names;
}
const EnumNames<PlugPosition>& enum_names(PlugPosition) {
  static const EnumNames<PlugPosition> names = {{PlugPosition::Pre, "pre"}, {PlugPosition::Post, "post"}};
  return names;
}

const AttentionEntry& plug_attention() {
  using O = PlugOptions;
  static const AttentionVariant variant = reading_shared_keys(make_variant<O>(
      "plug", "pairwise logit gating softmax(A * (1 + G)), G from a head-shared gating path (PLuG)",
      {
          key("model.attention.plug_fraction", &O::fraction, 0.0625, 4,
              "plug: gating width d_g as a fraction of the head width."),
          key("model.attention.plug_gml", &O::gml,
              "plug: Gating Modulation Layer (PLuG Table 4): A act(R); B act(gA+gB); C act(wR+b); D 1->hidden->2 "
              "MLP then act(gA*gB); E act(gA*gB)."),
          key("model.attention.plug_hidden", &O::hidden, 1, 64, "plug: hidden width of GML variant D."),
          key("model.attention.plug_activation", &O::activation, "plug: bound on G (PLuG Table 5)."),
          key("model.attention.plug_head_specific", &O::head_specific,
              "plug: one gate per head instead of one shared by all heads (PLuG Table 6)."),
          key("model.attention.plug_position", &O::position,
              "plug: gate the logits before softmax, or the maps after it (PLuG Table 10)."),
          key("model.attention.plug_residual", &O::residual,
              "plug: multiply by (1 + G) rather than G (PLuG Table 11)."),
      }),
      {"model.attention.qkv_bias"});
  static const AttentionEntry entry{&variant, make_plug, count_plug};
  return entry;
}

}  // namespace repro
