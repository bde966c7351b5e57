#include "models/attention/diff_core.h"

#include <cmath>

#include "models/attention/common.h"
#include "models/cpu_ops.h"
#include "util/error.h"

namespace repro {

const EnumNames<LambdaSchedule>& enum_names(LambdaSchedule) {
  static const EnumNames<LambdaSchedule> names = {
      {LambdaSchedule::Depth, "depth"}, {LambdaSchedule::Fixed, "fixed"}, {LambdaSchedule::Learnable, "learnable"}};
  return names;
}

const std::vector<Key<DiffLayoutOptions>>& diff_layout_keys() {
  using O = DiffLayoutOptions;
  static const std::vector<Key<O>> keys = {
      key("model.attention.diff_heads", &O::heads, 0, 256,
          "diff, dgsa: differential heads h (each with two maps of width D/(2h)); 0 = model.heads / 2 for diff, "
          "model.heads for dgsa."),
      auto_key("model.attention.lambda_schedule", &O::lambda_schedule,
               "diff, dgsa: lambda_init = 0.8 - 0.6 exp(-0.3 l) with l the 0-based layer (depth), or "
               "model.attention.lambda_init (fixed); learnable (dgsa only): the (1 - lambda) output scale uses a "
               "learnable scalar per layer starting at model.attention.lambda_init; auto = depth for diff, fixed "
               "for dgsa."),
      key("model.attention.lambda_init", &O::lambda_init, 0, 0.99,
          "diff, dgsa: lambda_init when the schedule is fixed (the DGSA paper holds it at 0.8), the start of the "
          "learnable one."),
  };
  return keys;
}

double depth_lambda_init(int64_t layer_index) { return 0.8 - 0.6 * std::exp(-0.3 * static_cast<double>(layer_index)); }

int64_t differential_heads(const ModelOptions& o, const DiffLayoutOptions& layout, bool halve_by_default) {
  const int64_t set = layout.heads;
  const int64_t h = set > 0 ? set : halve_by_default ? std::max<int64_t>(1, o.heads / 2) : o.heads;
  if (o.dim % (2 * h) != 0)
    throw Error("differential attention needs model.dim=" + std::to_string(o.dim) +
                " divisible by 2h=" + std::to_string(2 * h) + " (h = model.attention.diff_heads, or model.heads/2)");
  return h;
}

int64_t diff_core_parameters(const ModelOptions& o, const DiffLayoutOptions& layout, bool halve_heads) {
  const int64_t h = differential_heads(o, layout, halve_heads);
  return 4 * o.dim * o.dim + 2 * (o.dim / (2 * h));
}

namespace {

double choose_lambda_init(const DiffLayoutOptions& o, int64_t layer_index) {
  return o.lambda_schedule == LambdaSchedule::Depth ? depth_lambda_init(layer_index) : o.lambda_init;
}

torch::nn::Linear projection(int64_t in, int64_t out, double std) {
  torch::nn::Linear layer(torch::nn::LinearOptions(in, out).bias(false));
  init_linear(layer, std);
  return layer;
}

}  // namespace

DiffCore::DiffCore(torch::nn::Module& owner, const ModelOptions& o, const DiffLayoutOptions& layout,
                   int64_t layer_index, bool halve_heads)
    : heads_(differential_heads(o, layout, halve_heads)),
      head_dim_(o.dim / (2 * heads_)),
      lambda_init_(choose_lambda_init(layout, layer_index)),
      attn_dropout_(o.attn_dropout),
      fused_(o.attention.fused) {
  q_ = owner.register_module("q", projection(o.dim, o.dim, o.init_std));
  k_ = owner.register_module("k", projection(o.dim, o.dim, o.init_std));
  v_ = owner.register_module("v", projection(o.dim, o.dim, o.init_std));
  out_ = owner.register_module("out", projection(o.dim, o.dim, o.init_std));
  head_norm_ = owner.register_module("head_norm", RMSNorm(2 * head_dim_, 1e-5));
}

DiffStreams DiffCore::project(const torch::Tensor& x) {
  DiffStreams s;
  s.q = linear(q_, x);                                    // (B, N, D)
  const auto q = split_heads(s.q, 2 * heads_);            // (B, 2h, N, d)
  const auto k = split_heads(linear(k_, x), 2 * heads_);  // (B, 2h, N, d)
  using torch::indexing::Slice;
  s.q1 = q.index({Slice(), Slice(0, torch::indexing::None, 2)});  // heads 0, 2, 4, ...
  s.q2 = q.index({Slice(), Slice(1, torch::indexing::None, 2)});  // heads 1, 3, 5, ...
  s.k1 = k.index({Slice(), Slice(0, torch::indexing::None, 2)});
  s.k2 = k.index({Slice(), Slice(1, torch::indexing::None, 2)});
  s.v = split_heads(linear(v_, x), heads_);  // (B, h, N, 2d)
  return s;
}

DiffAttended DiffCore::attend(const DiffStreams& s, const torch::Tensor& padding_mask, bool training) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(head_dim_));
  DiffAttended a;
  a.out1 = scaled_dot_product(s.q1, s.k1, s.v, padding_mask, scale, attn_dropout_, training, fused_, probed(a.map1));
  a.out2 = scaled_dot_product(s.q2, s.k2, s.v, padding_mask, scale, attn_dropout_, training, fused_, probed(a.map2));
  return a;  // (B, h, N, 2d) each
}

torch::Tensor DiffCore::finish(const torch::Tensor& heads_out) {
  const auto normed = head_norm_(heads_out) * (1.0 - lambda_init_);  // (B, h, N, 2d)
  return linear(out_, merge_heads(normed));                          // (B, N, D)
}

torch::Tensor DiffCore::finish(const torch::Tensor& heads_out, const torch::Tensor& lambda) {
  const auto normed = head_norm_(heads_out) * (1 - lambda).to(heads_out.scalar_type());  // (B, h, N, 2d)
  return linear(out_, merge_heads(normed));                                              // (B, N, D)
}

}  // namespace repro
