#include "models/param_count.h"

#include <cstdio>

namespace repro {

namespace {

// Attention and feed-forward first: their inner norms count as part of them.
std::string part_of(const std::string& name) {
  if (name.find(".attn.") != std::string::npos) return "attention";
  if (name.find(".ffn.") != std::string::npos) return "feed-forward";
  if (name.find("norm") != std::string::npos) return "norms";
  if (name.rfind("head.", 0) == 0) return "head";
  return "embeddings";
}

}  // namespace

ParamBreakdown count_parameters(const torch::nn::Module& model) {
  ParamBreakdown out;
  out.parts = {{"embeddings", 0}, {"attention", 0}, {"feed-forward", 0}, {"norms", 0}, {"head", 0}};
  for (const auto& item : model.named_parameters()) {
    const int64_t n = item.value().numel();
    out.total += n;
    const std::string part = part_of(item.key());
    for (auto& [label, count] : out.parts)
      if (label == part) count += n;
  }
  return out;
}

std::string format_millions(int64_t count) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2fM", static_cast<double>(count) / 1e6);
  return buffer;
}

}  // namespace repro
