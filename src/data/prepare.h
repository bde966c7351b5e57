#pragma once
// From the official splits to the splits one run uses: seeded limits and a
// stratified validation hold-out, both drawn with data.split_seed.
#include <vector>

#include "data/dataset.h"
#include "spec/config.h"

namespace repro {

// Limits, validation split, then data.noise.* on the chosen splits.
RunData prepare_run_data(const DatasetInfo& info, const RawData& raw, const Config& config);
// The same without noise.
RunData split_run_data(const DatasetInfo& info, const RawData& raw, const Config& config);

// Indices (sorted) of a seeded, stratified hold-out of `fraction` of each class.
std::vector<int64_t> stratified_indices(const std::vector<int64_t>& labels, int64_t num_classes, double fraction,
                                        int64_t seed);
torch::Tensor stratified_holdout(const torch::Tensor& labels, int64_t num_classes, double fraction, int64_t seed);
// Sorted indices of a seeded random subset of `limit` of `n` items (all when limit is 0 or >= n).
std::vector<int64_t> subset_indices(int64_t n, int64_t limit, int64_t seed);

}  // namespace repro
