#pragma once
// The one interface every attention variant implements, and the entry that lists a variant:
// its spec side (name, keys, settings struct: spec/attention_variant.h) and its factory.
// Each variant is built from the model's options (spec/options.h: its width, heads, dropouts and init
// are ModelOptions', its attention options and own settings in model.attention) and its block's 0-based
// layer index.
#include <torch/torch.h>

#include "spec/attention_variant.h"
#include "spec/options.h"

namespace repro {

class AttentionImpl : public torch::nn::Module {
 public:
  // x: (B, N, D). padding_mask: (B, N) bool, true at padded positions, or undefined.
  // Returns (B, N, D). Under an AttentionMapProbe (map_probe.h) it also records its
  // per-head attention maps (B, H, N, N).
  virtual torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& padding_mask) = 0;

  // Forward FLOPs (2 per multiply-add) per sequence of `tokens` tokens that the
  // linear layers do not account for: the (N x N) products (scores, maps x values)
  // and any other per-pair work. `repro bench` adds the linear layers itself.
  virtual double pairwise_flops(int64_t tokens) const = 0;
};

using AttentionPtr = std::shared_ptr<AttentionImpl>;

// A variant as models/attention/registry.cpp lists it: one line per variant.
struct AttentionEntry {
  const AttentionVariant* variant;  // name, summary, keys and settings struct, declared in the variant's file
  AttentionPtr (*make)(const ModelOptions& model, int64_t layer_index);
  // The parameters one module of the variant holds, from its options alone (nothing allocated: `repro params`,
  // --dry-run and the plan's memory check); throws as `make` does on options it cannot build. tests/test_model.cpp
  // checks it against the built module of every variant.
  int64_t (*count)(const ModelOptions& model);
};

}  // namespace repro
