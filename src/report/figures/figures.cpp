#include "report/figures/figures.h"

#include <cmath>
#include <cstdio>

#include "util/csv.h"
#include "util/error.h"
#include "util/files.h"

namespace repro {

namespace fs = std::filesystem;

FigureOptions figure_options(const std::string& format) {
  if (format == "png") return {true, false};
  if (format == "svg") return {false, true};
  if (format == "both") return {true, true};
  throw Error("--plot-format: got '" + format + "', expected png, svg or both");
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
