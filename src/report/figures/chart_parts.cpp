#include "report/figures/chart_parts.h"

#include <algorithm>

#include "record/folder.h"
#include "report/figures/palette.h"
#include "report/tables/stats.h"
#include "spec/run_spec.h"
#include "train/history.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro::figure_parts {

namespace fs = std::filesystem;

std::string stem_of(const ExperimentResults& results) {
  return safe_name(results.name + (results.profile.empty() ? "" : "_" + results.profile));
}

std::string title_of(const ExperimentResults& results) {
  return results.name + (results.profile.empty() ? "" : " (profile " + results.profile + ")");
}

std::vector<EpochRow> history_of(const RunResult& run) {
  if (!is_counted(run) || run.path.empty()) return {};
  const fs::path file = RunFolder(run.path).metrics_path();
  try {
    return parse_metrics_csv(read_regular_file(file, kRecordBytes, "a metrics.csv"), file);
  } catch (const std::exception&) {
    return {};
  }
}

ChartSeries series_from(const std::string& label, const EpochValues& values, int colour, bool dashed) {
  ChartSeries s;
  s.label = label, s.colour = colour, s.dashed = dashed;
  for (const auto& [epoch, v] : values) {
    if (v.empty()) continue;
    s.x.push_back(static_cast<double>(epoch));
    s.y.push_back(mean(v));
    s.std.push_back(sample_std(v));
    s.n.push_back(static_cast<int>(v.size()));
  }
  return s;
}

void colour_by_row(Chart& chart) {
  std::vector<std::string> rows;
  for (const auto& s : chart.series) rows.push_back(s.label);
  const std::vector<int> colours = row_colours(rows);
  for (size_t i = 0; i < chart.series.size(); ++i) chart.series[i].colour = colours[i];
}

namespace {

int max_seeds(const Chart& chart) {
  int most = 0;
  for (const auto& s : chart.series)
    for (int n : s.n) most = std::max(most, n);
  return most;
}

}  // namespace

std::string spread_note(const Chart& chart, const std::string& what) {
  const int n = max_seeds(chart);
  if (n < 2) return "1 seed per point: no " + what;
  return "mean ± 1 std (" + what + ") over up to " + std::to_string(n) + " seeds";
}

std::optional<RunNoise> noise_of(const RunResult& run) {
  try {
    const RunSpec spec = read_run_spec(RunFolder(run.path).spec_path());
    // The data settings only: converted as runs do.
    return RunNoise{data_options(spec.config).noise, spec.config.section_text({"model."})};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace repro::figure_parts
