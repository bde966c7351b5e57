#pragma once
// From the official splits to the splits one run uses: seeded limits and a
// stratified validation hold-out, both drawn with data.split_seed.
#include "data/dataset.h"
#include "spec/config.h"

namespace repro {

RunData prepare_run_data(const DatasetInfo& info, const RawData& raw, const Config& config);

// Indices of a stratified hold-out of `fraction` of each class (sorted), drawn with `seed`.
torch::Tensor stratified_holdout(const torch::Tensor& labels, int64_t num_classes, double fraction, int64_t seed);

}  // namespace repro
