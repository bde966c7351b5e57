#pragma once
// A documented FLOP count of a model's forward pass (2 FLOPs per multiply-add,
// matrix products only: norms, softmax, activations and elementwise ops are not
// counted, as in the usual MFU convention). A training step counts 3x forward
// (backward = 2x forward) per example.
#include <cstdint>

#include "models/model.h"

namespace repro {

struct FlopCount {
  double linear = 0;    // every Linear per token (the classifier head per example), the patch convolution
  double pairwise = 0;  // the attention variants' N x N products (AttentionImpl::pairwise_flops)
  double forward() const { return linear + pairwise; }
  double train_step() const { return 3.0 * forward(); }
};

// Per example with `tokens` sequence positions (ViT: patches + class token; text: ids).
// Linear layers with one input feature (PLuG's per-pair gate MLP) are left to the
// variant's pairwise count.
FlopCount forward_flops(ClassifierImpl& model, int64_t tokens);

}  // namespace repro
