#include "data/prepare.h"

#include <algorithm>
#include <random>

#include "data/noise.h"
#include "util/error.h"

namespace repro {

namespace {

Split take(const Split& split, const torch::Tensor& indices) {
  return {split.inputs.index_select(0, indices), split.labels.index_select(0, indices)};
}

// A seeded random subset of `limit` examples (kept in original order); all when limit is 0.
Split limit_split(const Split& split, int64_t limit, int64_t seed) {
  if (limit <= 0 || limit >= split.size()) return split;
  return take(split, torch::tensor(subset_indices(split.size(), limit, seed), torch::kInt64));
}

}  // namespace

std::vector<int64_t> subset_indices(int64_t n, int64_t limit, int64_t seed) {
  std::vector<int64_t> order(n);
  for (int64_t i = 0; i < n; ++i) order[i] = i;
  if (limit <= 0 || limit >= n) return order;
  std::mt19937_64 rng(static_cast<uint64_t>(seed) * 0x9E3779B97F4A7C15ull + 1);
  std::shuffle(order.begin(), order.end(), rng);
  order.resize(limit);
  std::sort(order.begin(), order.end());
  return order;
}

torch::Tensor stratified_holdout(const torch::Tensor& labels, int64_t num_classes, double fraction, int64_t seed) {
  const auto* y = labels.data_ptr<int64_t>();
  return torch::tensor(stratified_indices(std::vector<int64_t>(y, y + labels.size(0)), num_classes, fraction, seed),
                       torch::kInt64);
}

std::vector<int64_t> stratified_indices(const std::vector<int64_t>& labels, int64_t num_classes, double fraction,
                                        int64_t seed) {
  std::vector<std::vector<int64_t>> by_class(num_classes);
  for (size_t i = 0; i < labels.size(); ++i) by_class[labels[i]].push_back(static_cast<int64_t>(i));
  std::mt19937_64 rng(static_cast<uint64_t>(seed) * 0xD1B54A32D192ED03ull + 7);
  std::vector<int64_t> held;
  for (auto& members : by_class) {
    std::shuffle(members.begin(), members.end(), rng);
    const auto count = static_cast<size_t>(std::llround(fraction * members.size()));
    held.insert(held.end(), members.begin(), members.begin() + count);
  }
  std::sort(held.begin(), held.end());
  return held;
}

namespace {

void add_noise(RunData& data, const Config& config) {
  const NoiseSpec noise = NoiseSpec::from_config(config);
  if (noise.split == "none") return;
  if (!noise.is_image_kind())
    throw Error("data.noise.kind=" + noise.kind + " is a text noise; " + data.info.name +
                " is an image dataset (gaussian, salt_pepper, speckle, gaussian_blur, motion_blur, jpeg)");
  const std::string what = "noise: " + noise.kind + " level " + config.text("data.noise.level") + " on ";
  if (noise.applies_to("train")) data.train.inputs = add_image_noise(data.train.inputs, noise, 1);
  if (noise.applies_to("test")) data.test.inputs = add_image_noise(data.test.inputs, noise, 3);
  data.notes.push_back(what + noise.split + " (seed " + std::to_string(noise.seed) + ")");
}

}  // namespace

RunData prepare_run_data(const DatasetInfo& info, const RawData& raw, const Config& config) {
  RunData data = split_run_data(info, raw, config);
  add_noise(data, config);
  return data;
}

RunData split_run_data(const DatasetInfo& info, const RawData& raw, const Config& config) {
  const int64_t seed = config.integer("data.split_seed");
  RunData data;
  data.info = info;
  data.notes = raw.notes;
  Split train = limit_split(raw.train, config.integer("data.train_limit"), seed);
  data.test = limit_split(raw.test, config.integer("data.test_limit"), seed + 1);
  if (config.integer("data.train_limit") > 0 && config.integer("data.train_limit") < raw.train.size())
    data.notes.push_back("subset: " + std::to_string(train.size()) + " training examples (data.train_limit)");
  if (config.integer("data.test_limit") > 0 && config.integer("data.test_limit") < raw.test.size())
    data.notes.push_back("subset: " + std::to_string(data.test.size()) + " test examples (data.test_limit)");
  const double fraction = config.real("data.val_fraction");
  if (fraction <= 0) {
    data.train = train;
    return data;
  }
  const auto held = stratified_holdout(train.labels, info.num_classes, fraction, seed);
  auto keep_mask = torch::ones({train.size()}, torch::kBool);
  keep_mask.index_fill_(0, held, false);
  data.val = take(train, held);
  data.train = take(train, keep_mask.nonzero().squeeze(1));
  const int64_t val_limit = config.integer("data.val_limit");
  if (val_limit > 0 && val_limit < data.val.size()) {
    data.val = limit_split(data.val, val_limit, seed + 2);
    data.notes.push_back("subset: " + std::to_string(val_limit) + " validation examples (data.val_limit)");
  }
  return data;
}

}  // namespace repro
