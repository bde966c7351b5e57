#pragma once
// repro report RUNS --runs: one row per run instead of one cell per (row, dataset), for pandas, R or a spreadsheet.
// Each run's identity (experiment, profile, dataset, spec row, model configuration, one column per sweep axis, seed),
// its state, where it trained (device, GPU, precision), its selected and last epoch, every per-epoch metric at both
// (selected_test_acc, …, final_test_acc, …), its wall time and commit, and its folder. Runs the plans expect but
// that have no record are rows too (state pending, metrics empty); records that cannot be read say why (problem).
#include <string>
#include <vector>

#include "report/records/collect.h"

namespace repro {

// The CSV: a header line, then one line per run in plan order (experiment, profile, row, dataset, seed); fields
// quoted where they hold a comma (util/csv.h csv_quoted), numbers as recorded, empty where not measured.
std::string runs_csv(const std::vector<ExperimentResults>& all);

// The same rows as a Markdown table of the columns a reader scans (identity, state, device, epochs, `metric` at the
// selected and the last epoch, wall time); the CSV has every column.
std::string runs_markdown(const std::vector<ExperimentResults>& all, Metric metric);

}  // namespace repro
