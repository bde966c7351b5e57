#pragma once
// Shared by `diff` and `dgsa` (the official DIFF Transformer layout):
//   W_q, W_k, W_v, W_o: D -> D, no bias
//   Q, K viewed as (B, N, 2h, d) with d = D / (2h); heads 2i and 2i+1 form the pair (map 1, map 2)
//   V viewed as (B, N, h, 2d)
//   per-head output (B, h, N, 2d) -> RMSNorm over 2d (eps 1e-5, learnable weight) -> x (1 - lambda_init)
//   -> concat heads (B, N, D) -> W_o
#include <torch/torch.h>

#include <vector>

#include "models/attention/attention.h"
#include "models/attention/common.h"
#include "models/attention/map_probe.h"
#include "models/norm.h"

namespace repro {

// ---- the differential layout's settings and keys, part of diff's and dgsa's settings

enum class LambdaSchedule { Depth, Fixed, Learnable };
const EnumNames<LambdaSchedule>& enum_names(LambdaSchedule);

struct DiffLayoutOptions {
  int64_t heads = 0;                                       // diff_heads; 0 = model.heads / 2 (diff), model.heads (dgsa)
  LambdaSchedule lambda_schedule = LambdaSchedule::Depth;  // "auto" = the variant's own default (depth, fixed)
  double lambda_init = 0.8;  // when the schedule is fixed; the initial value when learnable (dgsa only)
};

// diff_heads, lambda_schedule, lambda_init: declared once here, bound into DiffOptions and DgsaOptions.
const std::vector<Key<DiffLayoutOptions>>& diff_layout_keys();

// ---- the shared mechanics

struct DiffAttended {
  torch::Tensor out1, out2;  // A1 V and A2 V: (B, h, N, 2d)
  torch::Tensor map1, map2;  // A1 and A2 (B, h, N, N), only under an AttentionMapProbe
};

struct DiffStreams {
  torch::Tensor q1, k1, q2, k2;  // (B, h, N, d)
  torch::Tensor v;               // (B, h, N, 2d)
  torch::Tensor q;               // (B, N, D): the whole query projection [Q1; Q2]
};

class DiffCore {
 public:
  // Registers q, k, v, out and head_norm on `owner`. With layout.heads = 0, diff
  // halves model.heads (`halve_heads`: the DIFF paper halves the baseline's heads) and
  // dgsa keeps them (the reading Table 5 confirms). `layer_index` (0-based) sets
  // lambda_init under the depth schedule; under the learnable one (dgsa) lambda_init
  // is the start value of the owner's parameter.
  DiffCore(torch::nn::Module& owner, const ModelOptions& model, const DiffLayoutOptions& layout, int64_t layer_index,
           bool halve_heads);

  DiffStreams project(const torch::Tensor& x);  // x: (B, N, D)

  // A1 V and A2 V: (B, h, N, 2d) each, by the fused kernel when present; under an AttentionMapProbe
  // explicitly, with the maps A1 and A2 (the variant records its combination of them).
  DiffAttended attend(const DiffStreams& s, const torch::Tensor& padding_mask, bool training);

  // (B, h, N, 2d) -> RMSNorm x (1 - lambda_init) -> (B, N, D) -> W_o
  torch::Tensor finish(const torch::Tensor& heads_out);
  // The same with a tensor lambda (a () learnable scalar) in place of lambda_init.
  torch::Tensor finish(const torch::Tensor& heads_out, const torch::Tensor& lambda);

  // Two maps of h heads: Q1 K1^T + Q2 K2^T over 2h d = D, A1 V + A2 V over 2 x h 2d = 2D.
  double pairwise_flops(int64_t tokens) const {
    return dot_product_flops(tokens, 2 * heads_ * head_dim_, 4 * heads_ * head_dim_);
  }
  double lambda_init() const { return lambda_init_; }
  int64_t heads() const { return heads_; }
  int64_t head_dim() const { return head_dim_; }

 private:
  int64_t heads_, head_dim_;
  double lambda_init_, attn_dropout_;
  bool fused_;  // AttentionOptions::fused (model.attention.fused)
  torch::nn::Linear q_{nullptr}, k_{nullptr}, v_{nullptr}, out_{nullptr};
  RMSNorm head_norm_{nullptr};
};

// 0.8 - 0.6 exp(-0.3 l), l = 0-based layer index (DIFF Transformer, official code).
double depth_lambda_init(int64_t layer_index);

// h, the differential heads: layout.heads, else model.heads / 2 (`halve_by_default`, diff) or model.heads (dgsa).
// Throws when model.dim is not divisible by 2h.
int64_t differential_heads(const ModelOptions& model, const DiffLayoutOptions& layout, bool halve_by_default);
// The parameters DiffCore registers on its owner: W_q, W_k, W_v, W_o (D x D each) and head_norm (2d = D / h).
int64_t diff_core_parameters(const ModelOptions& model, const DiffLayoutOptions& layout, bool halve_heads);

}  // namespace repro
