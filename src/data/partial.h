#pragma once
// Labels results from incomplete copies of a dataset as partial.
#include "data/dataset.h"

namespace repro {

// Adds a note to `data` for each split whose size differs from the official count.
void note_partial_splits(const DatasetInfo& info, RawData& data);

}  // namespace repro
