#pragma once
// Each row against a baseline row, column by column: difference of means, its
// 95% confidence interval (Welch's t, Welch–Satterthwaite df) and the two-sided
// p-value, as a markdown table. Used for our runs (`repro report --stats`) and
// for a paper's own table (mean, std, n as printed).
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/records/collect.h"
#include "report/tables/welch.h"

namespace repro {

// The sample of (row, column); nullopt when there is none (no runs, no cell).
using SampleLookup = std::function<std::optional<SampleSummary>(const std::string& row, const std::string& column)>;

struct StatsTable {
  std::string title;
  std::vector<std::string> rows, columns;
  std::string baseline;  // one of rows
  // In a sweep, each row's own baseline (the baseline row at the same sweep values); rows not in it use `baseline`.
  std::map<std::string, std::string> baseline_of;
  int digits = 2;
  SampleLookup lookup;
};

// "| model | col… |" with "Δ [low, high], p" cells; the baseline row reads "baseline"; bold where p < 0.05.
std::string render_stats_table(const StatsTable& table);

// One cell's text: "+2.16 [+1.66, +2.66], p = 0.0002", "+1.80 (n too small)", "— (no runs)".
std::string difference_text(const std::optional<SampleSummary>& row, const std::optional<SampleSummary>& baseline,
                            int digits);

// The baseline row of `results`: `requested` (--baseline) if given, else the spec's report.baseline, else the
// first row. A spec row that sweep axes expanded ("vanilla" into "vanilla+lr=0.001", …) is a baseline too: each
// row is then compared with it at the same sweep values (StatsTable::baseline_of). Throws repro::Error naming
// where the name came from when it is neither.
struct Baseline {
  std::string row;                            // a row, or the spec row a sweep expanded
  std::map<std::string, std::string> row_of;  // sweep: model configuration -> its baseline configuration
};
Baseline resolve_baseline(const ExperimentResults& results, const std::string& requested);

// Our runs' summary of one cell (complete runs only); nullopt without any.
std::optional<SampleSummary> results_sample(const ExperimentResults& results, const std::string& row,
                                            const std::string& column);

// Whether --stats is on by default: every cell with runs has n >= 2 and there are two rows.
bool stats_by_default(const ExperimentResults& results);

// The table of `results` (its metric) against its baseline, with a caption saying what the numbers mean.
std::string render_results_stats(const ExperimentResults& results, const Baseline& baseline);

}  // namespace repro
