// dgsa: multi-head Differential Gated Self-Attention (M-DGSA, Lygizou et al.).
//
//   [Q+; Q-] = x W_q, [K+; K-] = x W_k, V = x W_v         the diff layout: 2h heads of d, V as h heads of 2d
//   A+ = softmax(Q+ K+^T / sqrt(d)), A- = softmax(Q- K-^T / sqrt(d))     (B, h, N, N)
//   g = sigmoid(x W_g + b_g)                                (B, N, h): one gate per query token and head
//     gate_layers 2: g = sigmoid(GELU(x W_1 + b_1) W_g + b_g), W_1: D -> D (A.5's deeper gate)
//   A = g A+ - (1 - g) A-                                   g broadcast over keys; rows sum to 2g - 1
//   O = A V = g (A+ V) - (1 - g) (A- V)                     two fused calls
//   H = (1 - lambda_init) RMSNorm(O)                        per head over 2d; lambda_init fixed at 0.8 by default
//     lambda_schedule learnable: lambda_init is a () parameter per layer, starting at model.attention.lambda_init
//   y = [Q+; Q-] + concat_h(H) W_o   (residual from Q: on in DGViT, off in DGT)
#include "models/attention/dgsa.h"

#include "models/attention/common.h"
#include "models/attention/map_probe.h"
#include "models/cpu_ops.h"

namespace repro {

namespace {

class DgsaAttention : public AttentionImpl {
 public:
  DgsaAttention(const ModelOptions& o, int64_t layer_index)
      : DgsaAttention(o, o.attention.settings.as<DgsaOptions>(), layer_index) {}

  DgsaAttention(const ModelOptions& o, const DgsaOptions& dgsa, int64_t layer_index)
      : core_(*this, o, dgsa.layout, layer_index, /*halve_heads=*/false),
        proj_dropout_(o.dropout),
        q_residual_(dgsa.q_residual) {
    if (dgsa.gate_layers == 2) {
      gate_hidden_ = register_module("gate_hidden", torch::nn::Linear(o.dim, o.dim));
      init_linear(gate_hidden_, o.init_std);
    }
    gate_ = register_module("gate", torch::nn::Linear(o.dim, core_.heads()));  // the last gate layer
    if (dgsa.layout.lambda_schedule == LambdaSchedule::Learnable)
      lambda_ = register_parameter("lambda", torch::scalar_tensor(core_.lambda_init()));  // ()
    torch::NoGradGuard no_grad;
    if (dgsa.gate_weight_std > 0)
      gate_->weight.normal_(0, dgsa.gate_weight_std);
    else
      gate_->weight.zero_();
    gate_->bias.fill_(dgsa.gate_bias_init);
  }

  double pairwise_flops(int64_t tokens) const override { return core_.pairwise_flops(tokens); }

  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& padding_mask) override {
    const DiffStreams s = core_.project(x);
    const auto g = gate(x).transpose(1, 2).unsqueeze(-1);  // (B, h, N, 1)
    const DiffAttended a = core_.attend(s, padding_mask, is_training());
    const auto &excite = a.out1, &inhibit = a.out2;
    if (a.map1.defined()) record_map(g * a.map1 - (1 - g) * a.map2);                          // (B, h, N, N), probe
    const auto heads_out = g * excite - (1 - g) * inhibit;                                    // (B, h, N, 2d)
    auto y = lambda_.defined() ? core_.finish(heads_out, lambda_) : core_.finish(heads_out);  // (B, N, D)
    if (q_residual_) y = y + s.q;
    return repro::dropout(y, proj_dropout_, is_training());
  }

 private:
  torch::Tensor gate(const torch::Tensor& x) {  // (B, N, D) -> (B, N, h)
    const auto input = gate_hidden_ ? repro::gelu(linear(gate_hidden_, x)) : x;
    return torch::sigmoid(linear(gate_, input));
  }

  DiffCore core_;
  double proj_dropout_;
  bool q_residual_;
  torch::nn::Linear gate_hidden_{nullptr}, gate_{nullptr};
  torch::Tensor lambda_;  // () when lambda_schedule is learnable, else undefined
};

AttentionPtr make_dgsa(const ModelOptions& model, int64_t layer_index) {
  return std::make_shared<DgsaAttention>(model, layer_index);
}

// The differential core, gate_hidden (D -> D, gate_layers 2), gate (D -> h) and the learnable lambda (one).
int64_t count_dgsa(const ModelOptions& o) {
  const DgsaOptions& dgsa = o.attention.settings.as<DgsaOptions>();
  const int64_t h = differential_heads(o, dgsa.layout, /*halve_by_default=*/false);
  return diff_core_parameters(o, dgsa.layout, /*halve_heads=*/false) +
         (dgsa.gate_layers == 2 ? linear_parameters(o.dim, o.dim) : 0) + linear_parameters(o.dim, h) +
         (dgsa.layout.lambda_schedule == LambdaSchedule::Learnable ? 1 : 0);
}

}  // namespace

const AttentionEntry& dgsa_attention() {
  using O = DgsaOptions;
  static const AttentionVariant variant = make_variant<O>(
      "dgsa", "differential gated self-attention (g A+ - (1-g) A-)V, per-token per-head sigmoid gate (M-DGSA)",
      concat(keys_of_part(&O::layout, diff_layout_keys()),
             {
                 on_off_by_modality("model.attention.q_residual", &O::q_residual, /*vision=*/true, /*text=*/false,
                                    "dgsa: Y = Q + O W_o (the paper's optional residual from [Q+; Q-]); auto = on in "
                                    "vit (DGViT), off in text (DGT)."),
                 key("model.attention.gate_bias_init", &O::gate_bias_init, -20, 20,
                     "dgsa: initial bias of the gate; 0 gives g = 0.5."),
                 key("model.attention.gate_weight_std", &O::gate_weight_std, 0, 1,
                     "dgsa: std of the normal init of the gate weights; 0 = zeros."),
                 key("model.attention.gate_layers", &O::gate_layers, 1, 2,
                     "dgsa: gate depth; 1 = g = sigmoid(x W_g + b_g), W_g: D -> h (the paper's choice, A.5); 2 = "
                     "sigmoid(Linear(D, h)(GELU(Linear(D, D)(x)))) (gate_bias_init and gate_weight_std set the last "
                     "layer)."),
             }),
      // Values the other variants refuse: a deeper gate, and a learnable lambda (diff's is learnable already).
      {{"model.attention.gate_layers", {}, {}},
       {"model.attention.lambda_schedule",
        {"learnable"},
        {{"diff",
          "diff's lambda is learnable already through lambda_q1, lambda_k1, lambda_q2, lambda_k2: use depth or "
          "fixed"}}}});
  static const AttentionEntry entry{&variant, make_dgsa, count_dgsa};
  return entry;
}

}  // namespace repro
