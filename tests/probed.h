#pragma once
// Attention maps in tests: a forward under an AttentionMapProbe (models/attention/map_probe.h).
#include <torch/torch.h>

#include <vector>

#include "models/attention/attention.h"
#include "models/attention/map_probe.h"
#include "models/model.h"

namespace repro::test {

// One attention module's output; its (B, H, N, N) maps into `maps`.
inline torch::Tensor forward_probed(const AttentionPtr& module, const torch::Tensor& x, const torch::Tensor& pad,
                                    torch::Tensor& maps) {
  AttentionMapProbe probe;
  const auto y = module->forward(x, pad);
  maps = probe.maps().at(0);
  return y;
}

// A model's logits; one (B, H, N, N) map per block into `maps`.
inline torch::Tensor forward_probed(ClassifierImpl& model, const ModelInput& input, std::vector<torch::Tensor>& maps) {
  AttentionMapProbe probe;
  const auto logits = model.forward(input);
  maps = probe.maps();
  return logits;
}

}  // namespace repro::test
