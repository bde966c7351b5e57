#include "models/param_count.h"

#include <cmath>
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

double printed_half_unit(const std::string& printed) {
  std::string digits = printed;
  double scale = 1;
  if (!digits.empty() &&
      (digits.back() == 'M' || digits.back() == 'k' || digits.back() == 'K' || digits.back() == 'B')) {
    scale = digits.back() == 'M' ? 1e6 : digits.back() == 'B' ? 1e9 : 1e3;
    digits.pop_back();
  }
  if (digits.empty() || digits.find_first_not_of("0123456789.") != std::string::npos ||
      digits.find('.') != digits.rfind('.') || digits.front() == '.' || digits.back() == '.')
    return 0;
  const auto dot = digits.find('.');
  const int decimals = dot == std::string::npos ? 0 : static_cast<int>(digits.size() - dot - 1);
  return 0.5 * scale * std::pow(10.0, -decimals);
}

PrintedMatch match_printed(int64_t count, double paper, const std::string& printed) {
  PrintedMatch match;
  const double difference = static_cast<double>(count) - paper;
  match.delta_percent = paper != 0 ? 100.0 * difference / paper : 0;
  match.half_unit = printed_half_unit(printed);
  match.within_1_percent = paper != 0 && std::abs(match.delta_percent) <= 1.0;
  match.within_rounding = match.half_unit > 0 && std::abs(difference) <= match.half_unit;
  return match;
}

}  // namespace repro
