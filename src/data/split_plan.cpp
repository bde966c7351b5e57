#include "data/split_plan.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "data/integrity.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

namespace {

// The items of `items` at `positions`.
std::vector<int64_t> pick(const std::vector<int64_t>& items, const std::vector<int64_t>& positions) {
  std::vector<int64_t> out;
  out.reserve(positions.size());
  for (const auto p : positions) out.push_back(items[p]);
  return out;
}

// 0..n-1 without `taken` (sorted or not), in order.
std::vector<int64_t> complement(int64_t n, const std::vector<int64_t>& taken) {
  std::vector<bool> used(n, false);
  for (const auto i : taken) used[i] = true;
  std::vector<int64_t> rest;
  for (int64_t i = 0; i < n; ++i)
    if (!used[i]) rest.push_back(i);
  return rest;
}

std::vector<int64_t> all_indices(int64_t n) { return complement(n, {}); }

// A test hold-out of a pool (`test`), then validation = a stratified val_fraction of the rest.
void hold_out(const std::vector<int64_t>& labels, const std::vector<int64_t>& test, int64_t classes,
              const SplitOptions& s, SourceSplit pool, SplitPlan& plan) {
  const auto rest = complement(static_cast<int64_t>(labels.size()), test);
  const auto val = stratified_indices(pick(labels, rest), classes, s.val_fraction, s.seed + 1);
  plan.test = {pool, test};
  plan.val = {pool, pick(rest, val)};
  plan.train = {pool, pick(rest, complement(static_cast<int64_t>(rest.size()), val))};
}

// The standard split of a dataset distributed unsplit, as TensorFlow Datasets and Hugging Face `datasets` cut
// Rotten Tomatoes: per class, in file order, the first round(0.8 n) examples are train, the next up to
// round(0.9 n) validation, the rest test. `with_val`: the training fold is train + validation.
void standard_fold(const std::vector<int64_t>& labels, int64_t classes, bool with_val, const SplitOptions& s,
                   SplitPlan& plan) {
  std::vector<int64_t> size(classes, 0), seen(classes, 0);
  for (const auto label : labels) ++size[label];
  std::vector<int64_t> fold, test;  // positions in the pool
  for (size_t i = 0; i < labels.size(); ++i) {
    const int64_t n = size[labels[i]], k = seen[labels[i]]++;
    const auto train_end = static_cast<int64_t>(0.8 * static_cast<double>(n) + 0.5);  // int(n * 0.8 + 0.5)
    const auto val_end = static_cast<int64_t>(0.9 * static_cast<double>(n) + 0.5);
    if (k >= val_end)
      test.push_back(static_cast<int64_t>(i));
    else if (k < train_end || with_val)
      fold.push_back(static_cast<int64_t>(i));
  }
  const auto val = stratified_indices(pick(labels, fold), classes, s.val_fraction, s.seed);
  plan.test = {SourceSplit::Train, test};
  plan.val = {SourceSplit::Train, pick(fold, val)};
  plan.train = {SourceSplit::Train, pick(fold, complement(static_cast<int64_t>(fold.size()), val))};
}

void split_unsplit(const DatasetInfo& info, const std::vector<int64_t>& labels, const SplitOptions& s,
                   SplitPlan& plan) {
  const std::string val = " (data.val_fraction " + format_number(s.val_fraction) + ")";
  switch (s.unsplit) {
    case UnsplitRule::Standard:
    case UnsplitRule::StandardWithVal: {
      const bool with_val = s.unsplit == UnsplitRule::StandardWithVal;  // the training fold: the first 90%, not 80%
      standard_fold(labels, info.num_classes, with_val, s, plan);
      plan.note(NoteKind::Info, info.name +
                                    ": no official split; test = the standard split's last 10% of each class, "
                                    "validation drawn from its first " +
                                    (with_val ? "90%" : "80%") + val + " (data.rotten_tomatoes_split)");
      return;
    }
    case UnsplitRule::Random:
      hold_out(labels, stratified_indices(labels, info.num_classes, 0.1, s.seed), info.num_classes, s, SourceSplit::Train,
               plan);
      plan.note(NoteKind::Info, info.name + ": no official split; seeded stratified 10% test, validation from the "
                                            "rest" + val + " (data.rotten_tomatoes_split, data.split_seed)");
      return;
  }
}

// Step 3: a seeded subset of `limit` examples of a planned split.
void limit(PlannedSplit& split, int64_t limit, int64_t seed, const std::string& what, const std::string& key,
           SplitPlan& plan) {
  const auto n = static_cast<int64_t>(split.indices.size());
  if (limit <= 0 || limit >= n) return;
  split.indices = pick(split.indices, subset_indices(n, limit, seed));
  plan.note(NoteKind::Subset, "subset: " + std::to_string(limit) + " " + what + " examples (" + key + ")");
}

// Step 4: every class of the data read is in every non-empty split.
void check_classes(const DatasetInfo& info, const SplitPlan& plan, const std::vector<int64_t>& train_labels,
                   const std::vector<int64_t>& test_labels, const SplitOptions& s) {
  auto present = count_classes(train_labels, info.num_classes);
  const auto in_test = count_classes(test_labels, info.num_classes);
  for (size_t c = 0; c < present.size(); ++c) present[c] += in_test[c];
  const struct {
    const char* name;
    const PlannedSplit& split;
    int64_t limit;
    const char* key;
  } splits[] = {{"training", plan.train, s.train_limit, "data.train_limit"},
                {"validation", plan.val, s.val_limit, "data.val_limit"},
                {"test", plan.test, s.test_limit, "data.test_limit"}};
  for (const auto& [name, split, limit_value, key] : splits) {
    if (split.indices.empty()) continue;
    const auto counts =
        count_classes(pick(split.pool == SourceSplit::Train ? train_labels : test_labels, split.indices), info.num_classes);
    std::vector<std::string> absent;
    for (int64_t c = 0; c < info.num_classes; ++c)
      if (present[c] > 0 && counts[c] == 0) absent.push_back(class_label(info, c));
    if (absent.empty()) continue;
    const bool limited = limit_value > 0 && static_cast<int64_t>(split.indices.size()) == limit_value;
    throw Error(info.name + ": the " + name + " split (" + std::to_string(split.indices.size()) +
                " examples) has no example of " + join(absent, ", ") +
                (limited ? " after " + std::string(key) + "=" + std::to_string(limit_value) +
                               " (a seeded random subset): raise the limit or change data.split_seed"
                         : ": the split is too small for " + std::to_string(info.num_classes) +
                               " classes (data.val_fraction, data.split_seed)"));
  }
}

}  // namespace

std::vector<int64_t> subset_indices(int64_t n, int64_t limit, int64_t seed) {
  std::vector<int64_t> order = all_indices(n);
  if (limit <= 0 || limit >= n) return order;
  std::mt19937_64 rng(static_cast<uint64_t>(seed) * 0x9E3779B97F4A7C15ull + 1);
  std::shuffle(order.begin(), order.end(), rng);
  order.resize(limit);
  std::sort(order.begin(), order.end());
  return order;
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

SplitPlan plan_splits(const DatasetInfo& info, const std::vector<int64_t>& train_labels,
                      const std::vector<int64_t>& test_labels, const SplitOptions& s,
                      const std::vector<std::string>& raw_notes) {
  SplitPlan plan;
  const std::string why = raw_notes.empty() ? "" : " (" + join(raw_notes, "; ") + ")";
  if (test_labels.empty() && info.official_test == 0) {  // no official split (Rotten Tomatoes)
    if (train_labels.empty()) throw Error(info.name + ": no examples were read" + why);
    split_unsplit(info, train_labels, s, plan);
  } else if (test_labels.empty()) {
    throw Error(info.name + ": the official test split is missing" + why + "; a run needs it");
  } else if (train_labels.empty()) {
    if (s.missing_train != MissingTrain::SplitTest)
      throw Error(info.name + ": the official training split is missing" + why +
                  ". Get it, or set data.missing_train=split_test to hold out 10% of the test split as test and train on the rest (partial).");
    hold_out(test_labels, stratified_indices(test_labels, info.num_classes, 0.1, s.seed), info.num_classes, s,
             SourceSplit::Test, plan);
    plan.note(NoteKind::Incomplete, "partial data: " + info.name +
                                        " test = a stratified 10% of the official test split, training and "
                                        "validation (data.val_fraction " +
                                        format_number(s.val_fraction) + ") from the rest");
  } else {
    const auto val = stratified_indices(train_labels, info.num_classes, s.val_fraction, s.seed);
    plan.val = {SourceSplit::Train, val};
    plan.train = {SourceSplit::Train, complement(static_cast<int64_t>(train_labels.size()), val)};
    plan.test = {SourceSplit::Test, all_indices(static_cast<int64_t>(test_labels.size()))};
  }
  limit(plan.train, s.train_limit, s.seed, "training", "data.train_limit", plan);
  limit(plan.val, s.val_limit, s.seed + 2, "validation", "data.val_limit", plan);
  limit(plan.test, s.test_limit, s.seed + 1, "test", "data.test_limit", plan);
  check_classes(info, plan, train_labels, test_labels, s);
  return plan;
}

}  // namespace repro
