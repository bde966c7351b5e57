#include "report/figures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "record/eval_record.h"
#include "record/folder.h"
#include "report/palette.h"
#include "report/stats.h"
#include "spec/run_spec.h"
#include "train/history.h"
#include "util/csv.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace fs = std::filesystem;

namespace {

// The per-epoch values of one metric over the seeds of one row: epoch -> values.
using EpochValues = std::map<int64_t, std::vector<double>>;

std::string stem_of(const ExperimentResults& results) {
  return safe_name(results.name + (results.profile.empty() ? "" : "_" + results.profile));
}

std::string title_of(const ExperimentResults& results) {
  return results.name + (results.profile.empty() ? "" : " (profile " + results.profile + ")");
}

// The history of a complete run; empty when its metrics.csv cannot be read (the table lists such records).
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

// One series per row: each its row's colour (report/palette.h), the later of two that meet moved on.
void colour_by_row(Chart& chart) {
  std::vector<std::string> rows;
  for (const auto& s : chart.series) rows.push_back(s.label);
  const std::vector<int> colours = row_colours(rows);
  for (size_t i = 0; i < chart.series.size(); ++i) chart.series[i].colour = colours[i];
}

int max_seeds(const Chart& chart) {
  int most = 0;
  for (const auto& s : chart.series)
    for (int n : s.n) most = std::max(most, n);
  return most;
}

std::string spread_note(const Chart& chart, const std::string& what) {
  const int n = max_seeds(chart);
  if (n < 2) return "1 seed per point: no " + what;
  return "mean ± 1 std (" + what + ") over up to " + std::to_string(n) + " seeds";
}

// The noise setting a run's spec.resolved.yaml records, with its model section; nullopt when that file is missing
// or unreadable (the run is then placed on no robustness curve).
struct RunNoise {
  NoiseOptions noise;  // split none = clean
  std::string model;   // the resolved model section, as YAML text: one curve per model
};

std::optional<RunNoise> noise_of(const RunResult& run) {
  try {
    const RunSpec spec = read_run_spec(RunFolder(run.path).spec_path());
    // The data settings only: converted as runs do.
    return RunNoise{data_options(spec.config).noise, spec.config.section_text({"model."})};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

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
  const bool dashed = std::any_of(chart.series.begin(), chart.series.end(), [](const ChartSeries& s) { return s.dashed; });
  const bool marks = std::any_of(chart.series.begin(), chart.series.end(), [](const ChartSeries& s) { return !s.marks.empty(); });
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
    const int colour = colours[i];  // one colour per row name in every figure (report/palette.h)
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

}  // namespace

FigureOptions figure_options(const std::string& format) {
  if (format == "png") return {true, false};
  if (format == "svg") return {false, true};
  if (format == "both") return {true, true};
  throw Error("--plot-format: got '" + format + "', expected png, svg or both");
}

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
    // Rows in groups of at most one palette's worth of colours: more lines than colours cannot be told apart.
    std::vector<std::string> rows;
    for (const auto& row : results.model_configs)
      if (by_row.count(row)) rows.push_back(row);
    const size_t groups = (rows.size() + kRowsPerChart - 1) / kRowsPerChart;
    for (size_t g = 0; g < groups; ++g) {
      const std::vector<std::string> group(rows.begin() + g * kRowsPerChart,
                                           rows.begin() + std::min(rows.size(), (g + 1) * kRowsPerChart));
      const std::string part = groups > 1 ? "_part" + std::to_string(g + 1) : "";
      for (auto& chart : learning_set(results, dataset, group, by_row, marks)) {
        chart.name += part;
        if (groups > 1) chart.chart.title += " (" + std::to_string(g + 1) + "/" + std::to_string(groups) + ")";
        charts.push_back(chart);
      }
    }
  }
  return charts;
}

std::string noised_images(NoiseSplit split) {
  switch (split) {
    case NoiseSplit::Test: return "test images only";
    case NoiseSplit::Train: return "training images";
    case NoiseSplit::Both: return "train and test";
    case NoiseSplit::None: break;
  }
  return "none";
}

std::vector<NamedChart> robustness_charts(const ExperimentResults& results) {
  // (dataset, split, kind) -> model -> level -> values; clean runs (split none) go to level 0 of every chart.
  struct Key {
    std::string dataset;
    NoiseSplit split;
    NoiseKind kind;
    bool operator<(const Key& o) const { return std::tie(dataset, split, kind) < std::tie(o.dataset, o.split, o.kind); }
  };
  std::map<Key, std::map<std::string, std::map<double, std::vector<double>>>> noisy;
  std::map<std::string, std::map<std::string, std::vector<double>>> clean;  // dataset -> model -> values
  std::map<std::string, std::string> label_of;                              // model -> row name
  std::vector<std::string> model_order;
  for (const auto& row : results.model_configs)
    for (const auto& run : results.runs) {
      if (run.model_config != row || !is_counted(run)) continue;
      const std::optional<RunNoise> of_run = noise_of(run);
      if (!of_run) continue;
      const NoiseOptions& noise = of_run->noise;
      const std::string& model = of_run->model;
      if (std::find(model_order.begin(), model_order.end(), model) == model_order.end()) model_order.push_back(model);
      if (noise.split == NoiseSplit::None) {
        label_of[model] = row;  // the clean row names the model
        clean[run.dataset][model].push_back(run.value);
      } else {
        if (!label_of.count(model)) label_of[model] = row;
        noisy[{run.dataset, noise.split, noise.kind}][model][noise.level].push_back(run.value);
      }
    }
  std::vector<NamedChart> charts;
  for (const auto& [key, models] : noisy) {
    Chart chart;
    const std::string kind = name_of(key.kind);
    chart.title = title_of(results) + ": " + key.dataset + ", " + kind + " noise (" + noised_images(key.split) + ")";
    chart.x_label = kind + " level (0 = clean)";
    chart.y_label = "test accuracy (%)";
    for (size_t m = 0; m < model_order.size(); ++m) {
      const std::string& model = model_order[m];
      std::map<double, std::vector<double>> levels;
      if (models.count(model)) levels = models.at(model);
      if (clean.count(key.dataset) && clean[key.dataset].count(model)) levels[0] = clean[key.dataset][model];
      if (levels.empty() || !models.count(model)) continue;
      ChartSeries s;
      s.label = label_of[model], s.colour = row_colour(label_of[model]), s.spread = SpreadStyle::ErrorBars;
      for (const auto& [level, values] : levels) {
        s.x.push_back(level), s.y.push_back(mean(values)), s.std.push_back(sample_std(values));
        s.n.push_back(static_cast<int>(values.size()));
      }
      chart.series.push_back(s);
    }
    if (chart.series.empty()) continue;
    colour_by_row(chart);
    chart.subtitle = spread_note(chart, "error bars");
    charts.push_back({stem_of(results) + "_" + safe_name(key.dataset) + "_robustness_" + name_of(key.split) + "_" +
                          kind,
                      chart});
  }
  return charts;
}

std::vector<NamedChart> eval_robustness_charts(const ExperimentResults& results) {
  // (dataset, evaluation name) -> row -> level -> accuracies; only evaluations over levels (repro eval --levels).
  std::map<std::pair<std::string, std::string>, std::map<std::string, std::map<double, std::vector<double>>>> curves;
  std::map<std::pair<std::string, std::string>, std::string> x_label;
  for (const auto& row : results.model_configs)
    for (const auto& run : results.runs) {
      if (run.model_config != row || !is_counted(run) || run.path.empty()) continue;
      std::error_code ec;
      for (fs::directory_iterator it(RunFolder(run.path).eval_dir(), ec), end; !ec && it != end; it.increment(ec)) {
        if (it->path().extension() != ".json") continue;
        try {
          const EvalRecord record = read_eval_record(it->path());
          if (record.levels_key.empty()) continue;
          const std::string& key = record.levels_key;
          const std::string name = it->path().stem().string();
          for (const auto& point : record.points) {
            const std::optional<std::string> level = point.setting(key);
            if (!level || !point.acc) continue;
            curves[{run.dataset, name}][row][std::stod(*level)].push_back(*point.acc);
            const std::optional<std::string> kind = point.setting("data.noise.kind");
            x_label[{run.dataset, name}] = key + (kind ? " (" + *kind + ")" : "");
          }
        } catch (const std::exception&) {  // unreadable evaluations are listed by `repro report --eval`
        }
      }
    }
  std::vector<NamedChart> charts;
  for (const auto& [where, rows] : curves) {
    Chart chart;
    chart.title = title_of(results) + ": " + where.first + ", repro eval " + where.second;
    chart.x_label = x_label[where];
    chart.y_label = "accuracy (%)";
    for (const auto& row : results.model_configs) {
      if (!rows.count(row)) continue;
      ChartSeries s;
      s.label = row, s.colour = row_colour(row), s.spread = SpreadStyle::ErrorBars;
      for (const auto& [level, values] : rows.at(row)) {
        s.x.push_back(level), s.y.push_back(mean(values)), s.std.push_back(sample_std(values));
        s.n.push_back(static_cast<int>(values.size()));
      }
      chart.series.push_back(s);
    }
    chart.subtitle = spread_note(chart, "error bars") + "; trained clean, evaluated at each level";
    colour_by_row(chart);
    charts.push_back({stem_of(results) + "_" + safe_name(where.first) + "_eval_" + safe_name(where.second), chart});
  }
  return charts;
}

std::vector<NamedChart> sweep_charts(const ExperimentResults& results) {
  // (dataset, axis) -> the axis's values in plan order, and line (row plus other axes) -> value -> metric values.
  struct Axis {
    std::vector<std::string> values;
    std::vector<std::string> lines;
    std::map<std::string, std::map<std::string, std::vector<double>>> points;
  };
  std::map<std::pair<std::string, std::string>, Axis> axes;
  std::vector<std::pair<std::string, std::string>> order;  // (dataset, axis) in plan order
  for (const auto& run : results.runs)
    for (const auto& [label, value] : run.sweep) {
      const auto key = std::make_pair(run.dataset, label);
      if (!axes.count(key)) order.push_back(key);
      Axis& axis = axes[key];
      if (std::find(axis.values.begin(), axis.values.end(), value) == axis.values.end()) axis.values.push_back(value);
      std::string line = run.row.empty() ? run.model_config : run.row;
      for (const auto& [other, other_value] : run.sweep)
        if (other != label) line += "+" + other + "=" + other_value;
      if (std::find(axis.lines.begin(), axis.lines.end(), line) == axis.lines.end()) axis.lines.push_back(line);
      auto& values = axis.points[line][value];
      if (is_counted(run)) values.push_back(run.value);
    }
  std::vector<NamedChart> charts;
  for (const auto& key : order) {
    const Axis& axis = axes.at(key);
    Chart chart;
    chart.title = title_of(results) + ": " + name_of(results.metric) + " against " + key.second + " on " + key.first;
    chart.x_label = key.second + " (the sweep's values, evenly spaced)";
    chart.y_label = metric_info(results.metric).label;
    for (size_t i = 0; i < axis.values.size(); ++i) chart.x_tick_labels.emplace_back(static_cast<double>(i), axis.values[i]);
    for (size_t l = 0; l < axis.lines.size(); ++l) {
      ChartSeries s;
      s.label = axis.lines[l], s.colour = row_colours(axis.lines)[l], s.spread = SpreadStyle::ErrorBars;
      for (size_t i = 0; i < axis.values.size(); ++i) {
        const auto& v = axis.points.at(axis.lines[l]).count(axis.values[i])
                            ? axis.points.at(axis.lines[l]).at(axis.values[i]) : std::vector<double>{};
        if (v.empty()) continue;
        s.x.push_back(static_cast<double>(i)), s.y.push_back(mean(v)), s.std.push_back(sample_std(v));
        s.n.push_back(static_cast<int>(v.size()));
      }
      chart.series.push_back(s);
    }
    chart.subtitle = spread_note(chart, "error bars") + ", at each run's selected epoch";
    charts.push_back({stem_of(results) + "_" + safe_name(key.first) + "_sweep_" + safe_name(key.second), chart});
  }
  return charts;
}

std::string chart_csv(const Chart& chart) {
  std::string out = "series,x,mean,std,n\n";
  for (const auto& s : chart.series)
    for (size_t i = 0; i < s.x.size(); ++i) {
      char numbers[128];
      const double sd = i < s.std.size() ? s.std[i] : NAN;
      std::snprintf(numbers, sizeof numbers, "%.10g,%.10g,", s.x[i], s.y[i]);
      std::string line = numbers;
      if (std::isfinite(sd)) {
        std::snprintf(numbers, sizeof numbers, "%.10g", sd);
        line += numbers;
      }
      out += csv_quoted(s.label) + "," + line + "," + std::to_string(i < s.n.size() ? s.n[i] : 0) + "\n";
    }
  for (const auto& s : chart.series)
    for (const auto& [x, y] : s.marks) {
      char numbers[128];
      std::snprintf(numbers, sizeof numbers, ",%.10g,%.10g,,1\n", x, y);
      out += csv_quoted(s.label + " [" + chart.marks_label + "]") + numbers;
    }
  return out;
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

std::string write_figures(const std::vector<ExperimentResults>& all, const std::vector<ExperimentResults>& swept,
                          const fs::path& folder, const fs::path& markdown_dir, const FigureOptions& options,
                          const std::string& prefix, const std::vector<NamedChart>& extra) {
  fs::create_directories(folder);
  std::string out = "## Figures\n\n";
  int written = 0;
  std::vector<std::vector<NamedChart>> chart_sets;
  for (const auto& results : all) {
    auto charts = learning_charts(results);
    for (auto& chart : robustness_charts(results)) charts.push_back(chart);
    for (auto& chart : eval_robustness_charts(results)) charts.push_back(chart);
    chart_sets.push_back(std::move(charts));
  }
  for (const auto& results : swept) chart_sets.push_back(sweep_charts(results));
  chart_sets.push_back(extra);
  for (const auto& charts : chart_sets) {
    for (const auto& [stem, chart] : charts) {
      const std::string name = prefix + stem;
      const fs::path base = folder / name;
      if (options.png) write_chart(chart, base.string() + ".png", ChartFormat::Png);
      if (options.svg) write_chart(chart, base.string() + ".svg", ChartFormat::Svg);
      write_file_atomic(base.string() + ".csv", chart_csv(chart));
      const std::string relative = fs::relative(base, markdown_dir).generic_string();
      out += "![" + chart.title + "](" + relative + (options.png ? ".png" : ".svg") + ")\n\n";
      out += chart.subtitle + ". Series: [" + name + ".csv](" + relative + ".csv)" +
             (options.png && options.svg ? ", [SVG](" + relative + ".svg)" : "") + ".\n\n";
      ++written;
    }
  }
  if (written == 0) out += "No figures: no complete run with a readable metrics.csv.\n";
  return out;
}

}  // namespace repro
