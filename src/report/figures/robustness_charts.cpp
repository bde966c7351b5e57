// The robustness charts of `repro report --plots`: test accuracy against the noise level per model, from runs
// trained with data.noise, and accuracy against the level from `repro eval --levels` (eval/NAME.json).
#include <algorithm>
#include <filesystem>
#include <tuple>

#include "record/eval_record.h"
#include "record/folder.h"
#include "report/figures/chart_parts.h"
#include "report/figures/figures.h"
#include "report/figures/palette.h"
#include "report/tables/stats.h"
#include "util/strings.h"

namespace repro {

using namespace figure_parts;

namespace fs = std::filesystem;

namespace {

std::string noised_images(NoiseSplit split) {
  switch (split) {
    case NoiseSplit::Test:
      return "test images only";
    case NoiseSplit::Train:
      return "training images";
    case NoiseSplit::Both:
      return "train and test";
    case NoiseSplit::None:
      break;
  }
  return "none";
}

}  // namespace

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
    charts.push_back(
        {stem_of(results) + "_" + safe_name(key.dataset) + "_robustness_" + name_of(key.split) + "_" + kind, chart});
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

}  // namespace repro
