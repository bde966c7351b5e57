#include "models/param_count.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "models/attention/registry.h"
#include "models/ffn/registry.h"

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

namespace {

int64_t norm_parameters(const ModelOptions& o) { return o.norm == NormKind::RmsNorm ? o.dim : 2 * o.dim; }

// patch_embed (a C -> D convolution of patch x patch, with bias), cls_token, pos_embed (as VitImpl builds them).
int64_t vit_embeddings(const ModelOptions& o, const DatasetInfo& info) {
  const int64_t patches = (info.height / o.patch) * (info.width / o.patch);
  const int64_t positions = std::max(patches + 1, o.max_len);
  return info.channels * o.dim * o.patch * o.patch + o.dim + o.dim + positions * o.dim;
}

// token_embed (vocabulary x D) and pos_embed (as TextEncoderImpl builds them; fixed sines are a buffer).
int64_t text_embeddings(const ModelOptions& o, const DatasetInfo& info) {
  const int64_t positions = o.max_len > 0 ? o.max_len : info.max_length;
  return info.vocab_size * o.dim + (o.positions == Positions::Sinusoidal ? 0 : positions * o.dim);
}

// The bag of words: one linear layer from the vocabulary to the classes (BagOfWordsImpl; the IDF is a buffer).
ParamBreakdown bow_parameters(const DatasetInfo& info) {
  ParamBreakdown out;
  const int64_t head = info.vocab_size * info.num_classes + info.num_classes;
  out.parts = {{"embeddings", 0}, {"attention", 0}, {"feed-forward", 0}, {"norms", 0}, {"head", head}};
  out.total = head;
  return out;
}

}  // namespace

ParamBreakdown count_parameters(const ModelOptions& o, const DatasetInfo& info) {
  check_model_options(o, info);
  if (o.kind == ModelKind::Bow) return bow_parameters(info);
  const int64_t embeddings = o.kind == ModelKind::Text ? text_embeddings(o, info) : vit_embeddings(o, info);
  const int64_t attention = o.depth * attention_parameters(o);
  const int64_t feed_forward = o.depth * ffn_parameters(o);
  const int64_t norms = (2 * o.depth + 1) * norm_parameters(o);  // norm1 and norm2 of each block, the final norm
  const int64_t head = o.dim * info.num_classes + info.num_classes;
  ParamBreakdown out;
  out.parts = {{"embeddings", embeddings},
               {"attention", attention},
               {"feed-forward", feed_forward},
               {"norms", norms},
               {"head", head}};
  out.total = embeddings + attention + feed_forward + norms + head;
  return out;
}

int64_t training_state_bytes(int64_t params) { return params * 4 * 4; }

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
