// gimlp: gate-with-inhibition MLP as a Transformer feed-forward block
// (giMLP, Kang et al., Alg. 1 and eqs. 14-16, with channel projections).
//
//   T = GELU(x W + b)                          trunk, D -> e*D          (eq. 14, Alg. 1 step 1)
//   S = GELU(x W_g + b_g) W_i + b_i            gate branch, D -> D -> e*D
//   I = GELU(S - inh_p * max(S))               inhibition; max over the whole batch tensor
//   Z = I * T + T                              (eq. 16)
//   y = dropout(Z) W_2 + b_2 [then dropout]    e*D -> D
#include "models/ffn/gimlp.h"

#include <cmath>

#include "models/attention/common.h"
#include "models/cpu_ops.h"

namespace repro {

namespace {

class GiMlp : public FeedForwardImpl {
 public:
  explicit GiMlp(const ModelOptions& o) : dropout_(o.dropout), dropouts_(o.ffn.dropouts), inh_p_(o.ffn.inh_p) {
    const int64_t hidden = expanded_width(o);
    trunk_ = register_module("trunk", torch::nn::Linear(o.dim, hidden));
    gate_ = register_module("gate", torch::nn::Linear(o.dim, o.dim));
    inhibit_ = register_module("inhibit", torch::nn::Linear(o.dim, hidden));
    fc2_ = register_module("fc2", torch::nn::Linear(hidden, o.dim));
    for (auto* linear : {&trunk_, &gate_, &inhibit_, &fc2_}) init_linear(*linear, o.init_std);
  }

  torch::Tensor forward(const torch::Tensor& x) override {
    const auto trunk = repro::gelu(linear(trunk_, x));               // (B, N, e*D)
    const auto s = linear(inhibit_, repro::gelu(linear(gate_, x)));  // (B, N, e*D)
    const auto inhibition = repro::gelu(s - inh_p_ * s.max());
    const auto z = repro::dropout(inhibition * trunk + trunk, dropout_, is_training());
    const auto y = linear(fc2_, z);  // (B, N, D)
    return dropouts_ >= 2 ? repro::dropout(y, dropout_, is_training()) : y;
  }

 private:
  double dropout_;
  int64_t dropouts_;
  double inh_p_;
  torch::nn::Linear trunk_{nullptr}, gate_{nullptr}, inhibit_{nullptr}, fc2_{nullptr};
};

}  // namespace

FeedForwardPtr make_gimlp(const ModelOptions& model) { return std::make_shared<GiMlp>(model); }

int64_t count_gimlp(const ModelOptions& o) {
  const int64_t hidden = expanded_width(o);
  return 2 * (o.dim * hidden + hidden) + (o.dim * o.dim + o.dim) + (hidden * o.dim + o.dim);
}

}  // namespace repro
