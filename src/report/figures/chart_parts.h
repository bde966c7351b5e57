#pragma once
// The parts every chart of report/figures/ is made of: its file stem and title, a run's history and noise setting,
// a series from per-epoch values, the rows' colours and the note on its spread. Internal to report/figures/.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "record/epoch_row.h"
#include "report/figures/plot.h"
#include "report/records/collect.h"
#include "spec/options.h"

namespace repro::figure_parts {

// The per-epoch values of one metric over the seeds of one row: epoch -> values.
using EpochValues = std::map<int64_t, std::vector<double>>;

// "table1_short" (experiment and profile, a file name) and "table1 (profile short)" (a title).
std::string stem_of(const ExperimentResults& results);
std::string title_of(const ExperimentResults& results);

// The history of a complete run; empty when its metrics.csv cannot be read (the table lists such records).
std::vector<EpochRow> history_of(const RunResult& run);

// One series: the mean, sample std and n of each epoch's values.
ChartSeries series_from(const std::string& label, const EpochValues& values, int colour, bool dashed);

// One series per row: each its row's colour (report/figures/palette.h), the later of two that meet moved on.
void colour_by_row(Chart& chart);

// "mean ± 1 std (WHAT) over up to N seeds", or "1 seed per point: no WHAT".
std::string spread_note(const Chart& chart, const std::string& what);

// The noise setting a run's spec.resolved.yaml records, with its model section; nullopt when that file is missing
// or unreadable (the run is then placed on no robustness curve).
struct RunNoise {
  NoiseOptions noise;  // split none = clean
  std::string model;   // the resolved model section, as YAML text: one curve per model
};
std::optional<RunNoise> noise_of(const RunResult& run);

}  // namespace repro::figure_parts
