#pragma once
// The one split/limit planner of both modalities: which examples of the official
// splits form a run's train, validation and test splits. In this order:
//  1. pools: test is the official test split, the training fold the official training
//     split. A dataset without an official split (Rotten Tomatoes) gets its test split
//     and training fold by data.rotten_tomatoes_split (standard: the last 10% of each
//     class in file order, as TFDS and Hugging Face cut it); one without its training
//     split under data.missing_train=split_test: test = a seeded stratified 10% of the
//     official test split, the training fold the rest;
//  2. validation: a stratified data.val_fraction of each class of the training fold;
//  3. limits: data.train_limit, data.val_limit and data.test_limit take seeded random
//     subsets of the splits of 1-2, so train_limit is the number of examples trained on;
//  4. every class of the data read must be present in every non-empty split: an
//     error naming the split, the class and the setting that emptied it.
// Everything is drawn with data.split_seed, so every model and seed of an
// experiment sees the same splits.
#include <cstdint>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "spec/options.h"

namespace repro {

// Changes whenever the same settings would plan other splits (caches of tokenized splits key on it).
// 2: Rotten Tomatoes' standard split, data.val_fraction used by every rule (2026-11-23).
constexpr int kSplitRulesVersion = 2;

enum class SourceSplit { Train, Test };  // the official split a planned split's indices point into

struct PlannedSplit {
  SourceSplit pool = SourceSplit::Train;
  std::vector<int64_t> indices;  // sorted positions in the pool
};

struct SplitPlan : DataNotes {  // notes: how the splits were drawn, subsets
  PlannedSplit train, val, test;
};

// `train_labels` / `test_labels`: the labels of the official splits as read (either
// may be empty); `raw_notes` say why a split is missing, for the error message.
SplitPlan plan_splits(const DatasetInfo& info, const std::vector<int64_t>& train_labels,
                      const std::vector<int64_t>& test_labels, const SplitOptions& settings,
                      const std::vector<std::string>& raw_notes);

// Indices (sorted) of a seeded, stratified hold-out of `fraction` of each class
// (round(fraction * class size) examples of each).
std::vector<int64_t> stratified_indices(const std::vector<int64_t>& labels, int64_t num_classes, double fraction,
                                        int64_t seed);
// Sorted indices of a seeded random subset of `limit` of `n` items (all when limit is 0 or >= n).
std::vector<int64_t> subset_indices(int64_t n, int64_t limit, int64_t seed);

}  // namespace repro
