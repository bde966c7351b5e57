// dgsa: multi-head Differential Gated Self-Attention (M-DGSA, Lygizou et al.).
//
//   [Q+; Q-] = x W_q, [K+; K-] = x W_k, V = x W_v         the diff layout: 2h heads of d, V as h heads of 2d
//   A+ = softmax(Q+ K+^T / sqrt(d)), A- = softmax(Q- K-^T / sqrt(d))     (B, h, N, N)
//   g = sigmoid(x W_g + b_g)                                (B, N, h): one gate per query token and head
//   A = g A+ - (1 - g) A-                                   g broadcast over keys; rows sum to 2g - 1
//   O = A V = g (A+ V) - (1 - g) (A- V)                     two fused calls
//   H = (1 - lambda_init) RMSNorm(O)                        per head over 2d; lambda_init fixed at 0.8 by default
//   y = [Q+; Q-] + concat_h(H) W_o   (residual from Q: on in DGViT, off in DGT)
#include "models/attention/dgsa.h"

#include "models/attention/common.h"
#include "models/attention/differential.h"

namespace repro {

namespace {

class DgsaAttention : public AttentionImpl {
 public:
  DgsaAttention(const AttentionOptions& o, int64_t layer_index)
      : core_(*this, o, layer_index, /*halve_heads=*/false),
        proj_dropout_(o.proj_dropout),
        q_residual_(o.dgsa.q_residual) {
    gate_ = register_module("gate", torch::nn::Linear(o.dim, core_.heads()));
    torch::NoGradGuard no_grad;
    if (o.dgsa.gate_weight_std > 0)
      gate_->weight.normal_(0, o.dgsa.gate_weight_std);
    else
      gate_->weight.zero_();
    gate_->bias.fill_(o.dgsa.gate_bias_init);
  }

  double pairwise_flops(int64_t tokens) const override { return core_.pairwise_flops(tokens); }

  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& padding_mask, torch::Tensor* maps) override {
    const DifferentialStreams s = core_.project(x);
    const auto g = torch::sigmoid(gate_(x)).transpose(1, 2).unsqueeze(-1);  // (B, h, N, 1)
    std::pair<torch::Tensor, torch::Tensor> pair_maps;
    const auto [excite, inhibit] = core_.attend(s, padding_mask, is_training(), maps ? &pair_maps : nullptr);
    if (maps) *maps = g * pair_maps.first - (1 - g) * pair_maps.second;  // (B, h, N, N)
    auto y = core_.finish(g * excite - (1 - g) * inhibit);               // (B, N, D)
    if (q_residual_) y = y + s.q;
    return torch::dropout(y, proj_dropout_, is_training());
  }

 private:
  DifferentialCore core_;
  double proj_dropout_;
  bool q_residual_;
  torch::nn::Linear gate_{nullptr};
};

}  // namespace

AttentionPtr make_dgsa_attention(const AttentionOptions& options, int64_t layer_index) {
  return std::make_shared<DgsaAttention>(options, layer_index);
}

}  // namespace repro
