#include "models/ffn/registry.h"

#include "models/attention/common.h"
#include "models/cpu_ops.h"
#include "models/ffn/gimlp.h"
#include "models/ffn/mlp.h"
#include "models/ffn/swiglu.h"
#include "util/error.h"

namespace repro {

TwoLayerFeedForward::TwoLayerFeedForward(const ModelOptions& o, int64_t first_width, int64_t second_width)
    : dropout_(o.dropout), dropouts_(o.ffn.dropouts) {
  fc1_ = register_module("fc1", torch::nn::Linear(o.dim, first_width));
  fc2_ = register_module("fc2", torch::nn::Linear(second_width, o.dim));
  init_linear(fc1_, o.init_std);
  init_linear(fc2_, o.init_std);
}

torch::Tensor TwoLayerFeedForward::project_out(const torch::Tensor& h) {
  const auto y = linear(fc2_, repro::dropout(h, dropout_, is_training()));  // (B, N, D)
  return dropouts_ >= 2 ? repro::dropout(y, dropout_, is_training()) : y;
}

const std::vector<FeedForwardEntry>& ffn_table() {
  static const std::vector<FeedForwardEntry> table = {
      {FfnKind::Mlp, "Linear(D, ratio*D) -> GELU -> dropout -> Linear(ratio*D, D) [-> dropout]", make_mlp, count_mlp},
      {FfnKind::Swiglu, "Linear(D, e*D) split [a, b] -> a * SiLU(b) -> dropout -> Linear(e*D/2, D) [-> dropout]",
       make_swiglu, count_swiglu},
      {FfnKind::Gimlp, "gate with inhibition: GELU(xW) * (1 + GELU(S - inh_p max S)) -> Linear(e*D, D) (giMLP)",
       make_gimlp, count_gimlp},
  };
  return table;
}

namespace {

const FeedForwardEntry& ffn_entry(const FfnOptions& options) {
  for (const auto& entry : ffn_table())
    if (options.kind == entry.kind) return entry;
  throw Error("internal: feed-forward kind '" + name_of(options.kind) + "' has no entry in ffn_table()");
}

}  // namespace

FeedForwardPtr make_ffn(const ModelOptions& model) { return ffn_entry(model.ffn).make(model); }

int64_t ffn_parameters(const ModelOptions& model) { return ffn_entry(model.ffn).count(model); }

}  // namespace repro
