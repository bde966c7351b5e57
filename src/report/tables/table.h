#pragma once
// Tables like the paper's: rows = model configurations, columns = datasets,
// cells mean ± sample std over seeds, best mean per column in bold, runs that
// failed or are missing shown as such.
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "report/records/collect.h"

namespace repro {

enum class ReportFormat { Markdown, Csv };  // --format md | csv
const EnumNames<ReportFormat>& enum_names(ReportFormat);
enum class StatsChoice { Auto, On, Off };  // the Welch table under each table (md): auto = when every cell has n >= 2
const EnumNames<StatsChoice>& enum_names(StatsChoice);

struct ReportOptions {
  Metric metric = Metric::TestAcc;
  ReportFormat format = ReportFormat::Markdown;
  StatsChoice stats = StatsChoice::Auto;
  std::string baseline;  // the row the stats table compares with ("" = the spec's report.baseline or row 1)
};

struct Cell {
  std::vector<double> values;            // complete runs
  std::map<RunState, int> other_status;  // runs not counted, by state (not complete), e.g. {Pending: 1, Diverged: 1}
  std::map<MetricGap, int> gaps;         // complete runs without the table's value (no metric, not evaluated)
  std::string missing;                   // what the NoMetric gap lacks when it is not the table's metric
  bool partial = false;
  double mean = 0, std = 0;  // NaN when undefined
};

// The cell of one model configuration on one dataset; n counts distinct seeds
// (throws repro::Error if one seed appears twice).
Cell make_cell(const ExperimentResults& results, const std::string& model_config, const std::string& dataset);
// The same of only the runs `keep` accepts (the claims board: the runs of one reading).
Cell make_cell(const ExperimentResults& results, const std::string& model_config, const std::string& dataset,
               const std::function<bool(const RunResult&)>& keep);

// Runs of the cell not counted, as tables show them: "1 diverged, 2 pending" ("" when none).
std::string status_text(const Cell& cell, Metric metric);

// The table of `results` for its metric (results.metric).
std::string render_markdown(const ExperimentResults& results);
std::string render_csv(const std::vector<ExperimentResults>& all);

// "Records not counted (corrupt or inconsistent):" and one line per such run
// with its problem (which names the file); "" when there are none.
std::string bad_records_text(const ExperimentResults& results);
// "Cells that several results folders hold ...": which folder's runs each such cell counts, one line each ("" when
// none; report/records/cell_folder.h).
std::string other_folders_text(const ExperimentResults& results);
// "Damaged TensorBoard event files ...": the counted runs whose event file is damaged, one line each ("" when none).
std::string event_files_text(const ExperimentResults& results);

// A markdown table cell: one line, no column separator.
std::string markdown_cell(std::string text);

// Collects everything under `dir` and renders it in the requested format.
std::string render_report(const std::filesystem::path& dir, const ReportOptions& options);
// The same for results collected already (report --select collapses them first).
std::string render_report(const std::vector<ExperimentResults>& all, const ReportOptions& options);

}  // namespace repro
