// The sweep charts of `repro report --plots`: the reported metric against each sweep axis's values.
#include <algorithm>

#include "report/figures/chart_parts.h"
#include "report/figures/figures.h"
#include "report/figures/palette.h"
#include "report/tables/stats.h"
#include "util/strings.h"

namespace repro {

using namespace figure_parts;

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
    for (size_t i = 0; i < axis.values.size(); ++i)
      chart.x_tick_labels.emplace_back(static_cast<double>(i), axis.values[i]);
    for (size_t l = 0; l < axis.lines.size(); ++l) {
      ChartSeries s;
      s.label = axis.lines[l], s.colour = row_colours(axis.lines)[l], s.spread = SpreadStyle::ErrorBars;
      for (size_t i = 0; i < axis.values.size(); ++i) {
        const auto& v = axis.points.at(axis.lines[l]).count(axis.values[i])
                            ? axis.points.at(axis.lines[l]).at(axis.values[i])
                            : std::vector<double>{};
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

}  // namespace repro
