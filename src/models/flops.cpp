#include "models/flops.h"

#include "models/attention/attention.h"
#include "util/strings.h"

namespace repro {

FlopCount forward_flops(ClassifierImpl& model, int64_t tokens) {
  FlopCount count;
  const double n = static_cast<double>(tokens);
  for (const auto& item : model.named_modules()) {
    const std::string& name = item.key();
    const auto& module = item.value();
    if (const auto* linear = module->as<torch::nn::Linear>()) {
      const double in = static_cast<double>(linear->weight.size(1)), out = static_cast<double>(linear->weight.size(0));
      if (in == 1) continue;  // per-pair layers: the attention variant counts them
      count.linear += 2.0 * in * out * (ends_with(name, "head") ? 1.0 : n);
    } else if (const auto* conv = module->as<torch::nn::Conv2d>()) {
      // A patch embedding: one output position per patch, i.e. per token but the class token.
      count.linear += 2.0 * static_cast<double>(conv->weight.numel()) * (n - 1);
    } else if (const auto* attention = dynamic_cast<const AttentionImpl*>(module.get())) {
      count.pairwise += attention->pairwise_flops(tokens);
    }
  }
  return count;
}

}  // namespace repro
