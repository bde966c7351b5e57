#pragma once
// repro report's and repro status' selectors, the ones run and sweep take: --datasets, --rows (spec rows, or a
// model configuration with its sweep values), --seeds. A report shows only the runs they select (collect_results
// applies them before it matches records); a name that selects nothing is refused, listing what there is.
#include <cstdint>
#include <string>
#include <vector>

#include "record/run_id.h"

namespace repro {

struct RunFilter {
  std::vector<std::string> datasets;  // empty: every dataset
  std::vector<std::string> rows;      // spec rows ("DGT") or model configurations ("DGT+lr=0.001"); empty: all
  std::vector<int64_t> seeds;         // empty: every seed
  bool empty() const { return datasets.empty() && rows.empty() && seeds.empty(); }
  bool keeps(const RunId& run) const;
};

// Throws repro::Error when a dataset, row or seed of `filter` matches none of `runs`, naming those there (report
// and status refuse a selector that selects nothing: a typo never shows an empty table or "0 runs").
void check_selects(const std::vector<RunId>& runs, const RunFilter& filter);

}  // namespace repro
