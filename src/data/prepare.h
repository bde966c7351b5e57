#pragma once
// From the official splits to the splits one run uses (split_plan.h: validation
// hold-out, then limits, all drawn with data.split_seed), then data.noise.*.
#include <vector>

#include "data/dataset.h"
#include "data/split_plan.h"
#include "spec/options.h"

namespace repro {

// Splits and limits, then data.noise.* on the chosen splits.
RunData prepare_run_data(const DatasetInfo& info, const RawData& raw, const DataOptions& options);
// The same without noise.
RunData split_run_data(const DatasetInfo& info, const RawData& raw, const SplitOptions& split);

// Labels of a split as a vector (empty for an empty split).
std::vector<int64_t> label_vector(const Split& split);

}  // namespace repro
