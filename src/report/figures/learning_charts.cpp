// The learning charts of `repro report --plots` (loss, test and validation accuracy against epoch, one colour per
// row, each run's selected epoch marked) and those of `report --against` (each row's test accuracy, ours solid,
// theirs dashed).
#include <algorithm>
#include <cmath>

#include "report/figures/chart_parts.h"
#include "report/figures/figures.h"
#include "report/figures/palette.h"
#include "train/history.h"
#include "util/strings.h"

namespace repro {

using namespace figure_parts;

namespace {

// row -> metric -> epoch -> values
using RowCurves = std::map<std::string, std::map<Metric, EpochValues>>;
// row -> metric -> (selected epoch, the run's value there), one per run
using RowMarks = std::map<std::string, std::map<Metric, std::vector<std::pair<double, double>>>>;

constexpr size_t kRowsPerChart = 8;  // the palette's colours
constexpr const char* kMarksLabel = "selected epoch (one per run)";

// A row with noise on the test images only trains exactly like its clean row (same seed, same clean data): its
// learning curves would repeat that row's, so the learning charts leave it out (the robustness charts show it).
bool trains_like_another_row(const RunResult& run) {
  if (run.path.empty()) return false;
  const std::optional<RunNoise> noise = noise_of(run);
  return noise && noise->noise.split == NoiseSplit::Test;
}

std::string learning_subtitle(const Chart& chart) {
  const bool dashed =
      std::any_of(chart.series.begin(), chart.series.end(), [](const ChartSeries& s) { return s.dashed; });
  const bool marks =
      std::any_of(chart.series.begin(), chart.series.end(), [](const ChartSeries& s) { return !s.marks.empty(); });
  return spread_note(chart, "band") + (dashed ? "; dashed: validation" : "") +
         (marks ? "; open diamonds: each run's selected epoch" : "");
}

// The learning charts of `rows` on `dataset`, one colour per row:
//   loss: training loss solid, validation loss dashed (a model that overfits shows it there first);
//   accuracy: test accuracy; val_accuracy: validation accuracy (apart, so that 7 rows stay readable).
// Each run's selected epoch is marked on its row's validation loss, test and validation accuracy.
std::vector<NamedChart> learning_set(const ExperimentResults& results, const std::string& dataset,
                                     const std::vector<std::string>& rows, RowCurves& by_row, RowMarks& marks) {
  Chart loss, test, val;
  loss.title = title_of(results) + ": " + dataset + ", loss";
  test.title = title_of(results) + ": " + dataset + ", test accuracy";
  val.title = title_of(results) + ": " + dataset + ", validation accuracy";
  loss.x_label = test.x_label = val.x_label = "epoch";
  loss.y_label = "loss (cross-entropy)";  // training and test loss on one axis
  test.y_label = metric_info(Metric::TestAcc).label;
  val.y_label = metric_info(Metric::ValAcc).label;
  loss.integer_x = test.integer_x = val.integer_x = true;
  loss.marks_label = test.marks_label = val.marks_label = kMarksLabel;
  const std::vector<int> colours = row_colours(rows);
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string& row = rows[i];
    auto& metrics = by_row[row];
    const int colour = colours[i];  // one colour per row name in every figure (report/figures/palette.h)
    const auto series = [&](const std::string& label, Metric metric, bool dashed, bool marked) {
      ChartSeries s = series_from(label, metrics[metric], colour, dashed);
      if (marked) s.marks = marks[row][metric];
      return s;
    };
    loss.series.push_back(series(row + " (train)", Metric::TrainLoss, false, false));
    if (!metrics[Metric::ValLoss].empty()) loss.series.push_back(series(row + " (val)", Metric::ValLoss, true, true));
    test.series.push_back(series(row, Metric::TestAcc, false, true));
    if (!metrics[Metric::ValAcc].empty()) val.series.push_back(series(row, Metric::ValAcc, false, true));
  }
  const std::string stem = stem_of(results) + "_" + safe_name(dataset);
  std::vector<NamedChart> charts{{stem + "_loss", loss}, {stem + "_accuracy", test}};
  if (!val.series.empty()) charts.push_back({stem + "_val_accuracy", val});
  for (auto& [name, chart] : charts) chart.subtitle = learning_subtitle(chart);
  return charts;
}

// One chart set's rows, and what its file name and title add ("" for the only set).
struct RowGroup {
  std::vector<std::string> rows;
  std::string name, title;  // "_no_decay_paper", " (no_decay=paper)"; "_part2", " (2/3)"; "", ""
};

// The rows of one dataset's learning charts in groups of at most one palette's worth of colours (more lines than
// colours cannot be told apart). Too many rows for one chart, in a sweep (rows carrying sweep values): one set per
// combination of sweep values, so that each reading is read on its own (table2/weight_decay: the paper's
// no_decay rule, vectors_embeddings); then, or without sweep values, consecutive parts.
std::vector<RowGroup> row_groups(const ExperimentResults& results, const std::string& dataset,
                                 const std::vector<std::string>& rows) {
  if (rows.size() <= kRowsPerChart) return {{rows, "", ""}};
  std::map<std::string, std::string> sweep_of;  // model_config -> "no_decay=paper" ("" without sweep values)
  for (const auto& run : results.runs)
    if (run.dataset == dataset && !run.sweep.empty())
      sweep_of[run.model_config] = RunId::compose_model_config("", run.sweep).substr(1);
  std::vector<std::pair<std::string, std::vector<std::string>>> by_sweep;  // in row order of first appearance
  for (const auto& row : rows) {
    const std::string sweep = sweep_of.count(row) ? sweep_of.at(row) : "";
    auto it = std::find_if(by_sweep.begin(), by_sweep.end(), [&](const auto& g) { return g.first == sweep; });
    if (it == by_sweep.end()) it = by_sweep.insert(by_sweep.end(), {sweep, {}});
    it->second.push_back(row);
  }
  if (by_sweep.size() == 1) by_sweep.front().first.clear();  // one combination: nothing to name
  std::vector<RowGroup> groups;
  for (const auto& [sweep, members] : by_sweep) {
    const size_t parts = (members.size() + kRowsPerChart - 1) / kRowsPerChart;
    for (size_t p = 0; p < parts; ++p) {
      RowGroup group;
      group.rows.assign(members.begin() + p * kRowsPerChart,
                        members.begin() + std::min(members.size(), (p + 1) * kRowsPerChart));
      if (!sweep.empty()) {
        group.name = "_" + safe_name(sweep);  // "_no_decay_paper": no '=' or '+' in a file name
        std::replace_if(group.name.begin(), group.name.end(), [](char c) { return c == '=' || c == '+'; }, '_');
        group.title = " (" + sweep + ")";
      }
      if (parts > 1) {
        group.name += "_part" + std::to_string(p + 1);
        group.title += " (" + std::to_string(p + 1) + "/" + std::to_string(parts) + ")";
      }
      groups.push_back(group);
    }
  }
  return groups;
}

}  // namespace

std::vector<NamedChart> learning_charts(const ExperimentResults& results) {
  std::vector<NamedChart> charts;
  for (const auto& dataset : results.datasets) {
    RowCurves by_row;
    RowMarks marks;
    for (const auto& run : results.runs) {
      if (run.dataset != dataset || trains_like_another_row(run)) continue;
      for (const auto& row : history_of(run))
        for (const Metric metric : {Metric::TrainLoss, Metric::ValLoss, Metric::TestAcc, Metric::ValAcc}) {
          const double v = metric_value(row, metric);
          if (!std::isfinite(v)) continue;
          by_row[run.model_config][metric][row.epoch].push_back(v);
          if (row.epoch == run.selected_epoch)
            marks[run.model_config][metric].emplace_back(static_cast<double>(row.epoch), v);
        }
    }
    std::vector<std::string> rows;
    for (const auto& row : results.model_configs)
      if (by_row.count(row)) rows.push_back(row);
    for (const auto& group : row_groups(results, dataset, rows)) {
      for (auto& chart : learning_set(results, dataset, group.rows, by_row, marks)) {
        chart.name += group.name;
        chart.chart.title += group.title;
        charts.push_back(chart);
      }
    }
  }
  return charts;
}

std::vector<NamedChart> against_charts(const ExperimentResults& mine, const ExperimentResults& other,
                                       const std::string& mine_label, const std::string& other_label) {
  std::vector<NamedChart> charts;
  for (const auto& dataset : mine.datasets) {
    Chart chart;
    chart.title = title_of(mine) + ": " + dataset + ", test accuracy, " + mine_label + " (solid) against " +
                  other_label + " (dashed)";
    chart.x_label = "epoch";
    chart.y_label = "test accuracy (%)";
    chart.integer_x = true;
    for (const auto& row : mine.model_configs) {
      // row -> seed -> run, on each side; only seeds with a twin are drawn.
      std::map<long long, const RunResult*> ours, theirs;
      for (const auto& run : mine.runs)
        if (run.model_config == row && run.dataset == dataset && is_counted(run)) ours[run.seed] = &run;
      for (const auto& run : other.runs)
        if (run.model_config == row && run.dataset == dataset && is_counted(run)) theirs[run.seed] = &run;
      EpochValues a, b;
      for (const auto& [seed, run] : ours) {
        if (!theirs.count(seed)) continue;
        for (const auto& epoch : history_of(*run)) a[epoch.epoch].push_back(metric_value(epoch, Metric::TestAcc));
        for (const auto& epoch : history_of(*theirs.at(seed)))
          b[epoch.epoch].push_back(metric_value(epoch, Metric::TestAcc));
      }
      if (a.empty() || b.empty()) continue;
      chart.series.push_back(series_from(row + ", " + mine_label, a, row_colour(row), false));
      chart.series.push_back(series_from(row + ", " + other_label, b, row_colour(row), true));
    }
    if (chart.series.empty()) continue;
    chart.subtitle = "the same seeds on each side; " + spread_note(chart, "band");
    charts.push_back({stem_of(mine) + "_" + safe_name(dataset) + "_against", chart});
  }
  return charts;
}

}  // namespace repro
