#include "report/tables/significance.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/tables/table.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

namespace {

// Two significant digits ("p = 0.049", "p = 0.0026"); tiny values as a bound.
std::string p_text(double p) {
  char buffer[32];
  if (p < 0.0001)
    std::snprintf(buffer, sizeof buffer, "p < 0.0001");
  else
    std::snprintf(buffer, sizeof buffer, "p = %.2g", p);
  return buffer;
}

}  // namespace

std::string difference_text(const std::optional<SampleSummary>& row, const std::optional<SampleSummary>& baseline,
                            int digits) {
  if (!row || !baseline) return "— (no runs)";
  const WelchResult r = welch_test(*row, *baseline);
  if (r.status != WelchStatus::Ok) return fixed_digits(r.difference, digits, true) + " (" + welch_status_text(r.status) + ")";
  const std::string text = fixed_digits(r.difference, digits, true) + " [" + fixed_digits(r.ci_low, digits, true) + ", " +
                           fixed_digits(r.ci_high, digits, true) + "], " + p_text(r.p);
  return r.p < 0.05 ? "**" + text + "**" : text;
}

std::string render_stats_table(const StatsTable& table) {
  std::string out = "### " + table.title + "\n\n| model |";
  for (const auto& column : table.columns) out += " " + column + " |";
  out += "\n|---|";
  for (size_t i = 0; i < table.columns.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& row : table.rows) {
    out += "| " + row + " |";
    const auto own = table.baseline_of.find(row);
    const std::string& baseline = own != table.baseline_of.end() ? own->second : table.baseline;
    for (const auto& column : table.columns)
      out += " " +
             (row == baseline ? std::string("baseline")
              : baseline.empty()
                  ? std::string("— (no baseline run at its sweep values)")
                  : difference_text(table.lookup(row, column), table.lookup(baseline, column), table.digits)) +
             " |";
    out += "\n";
  }
  return out;
}

namespace {

// Sweep rows are "<spec row>+<axis>=<value>[+…]": the suffixes the sweep gave `spec_row`, longest first.
std::vector<std::string> sweep_suffixes(const std::vector<std::string>& rows, const std::string& spec_row) {
  std::vector<std::string> suffixes;
  for (const auto& row : rows)
    if (starts_with(row, spec_row + "+") && row.find('=', spec_row.size()) != std::string::npos)
      suffixes.push_back(row.substr(spec_row.size()));
  std::sort(suffixes.begin(), suffixes.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return suffixes;
}

}  // namespace

// The baseline of each configuration is the baseline row's configuration at the same sweep values (row and sweep
// values as plan.json or summary.json record them), whatever else the folder holds: a sweep written beside the
// plain rows compares `dgsa+lr=0.0003` with `vanilla+lr=0.0003`, the plain `dgsa` with the plain `vanilla`. A
// configuration whose sweep values the baseline row lacks gets none (""). nullopt when no run records its row.
std::optional<Baseline> baseline_by_sweep_values(const ExperimentResults& results, const std::string& wanted) {
  std::map<std::string, std::pair<std::string, SweepValues>> coordinates;  // configuration -> (spec row, sweep)
  for (const auto& run : results.runs)
    if (!run.row.empty()) coordinates.emplace(run.model_config, std::make_pair(run.row, run.sweep));
  std::map<SweepValues, std::string> of_wanted;  // sweep values -> the baseline row's configuration there
  for (const auto& [config, at] : coordinates)
    if (at.first == wanted) of_wanted.emplace(at.second, config);
  if (of_wanted.empty()) return std::nullopt;
  Baseline baseline{of_wanted.count({}) ? of_wanted.at({}) : wanted, {}};
  const bool swept =
      std::any_of(coordinates.begin(), coordinates.end(), [](const auto& c) { return !c.second.second.empty(); });
  if (!swept) return baseline;  // no sweep: every row against the one baseline row
  for (const auto& config : results.model_configs) {
    const auto at = coordinates.find(config);
    if (at == coordinates.end()) continue;  // a record without its row: compared with the plain baseline
    const auto match = of_wanted.find(at->second.second);
    baseline.row_of[config] = match != of_wanted.end() ? match->second : "";
  }
  return baseline;
}

Baseline resolve_baseline(const ExperimentResults& results, const std::string& requested) {
  const auto& rows = results.model_configs;
  if (rows.empty()) throw Error(results.name + ": no rows to compare");
  const std::string wanted = !requested.empty() ? requested : results.baseline;
  if (wanted.empty()) return {rows.front(), {}};
  if (auto by_values = baseline_by_sweep_values(results, wanted)) return *by_values;
  if (std::find(rows.begin(), rows.end(), wanted) != rows.end()) return {wanted, {}};
  if (const auto suffixes = sweep_suffixes(rows, wanted); !suffixes.empty()) {  // records without their row
    Baseline baseline{wanted, {}};
    for (const auto& row : rows)
      for (const auto& suffix : suffixes)
        if (ends_with(row, suffix)) {
          baseline.row_of[row] = wanted + suffix;
          break;
        }
    return baseline;
  }
  const std::string source = !requested.empty() ? "--baseline" : "report.baseline in " + results.baseline_source;
  throw Error(source + ": '" + wanted + "' is not a row of experiment " + results.name + " (rows: " + join(rows, ", ") +
              ")");
}

std::optional<SampleSummary> results_sample(const ExperimentResults& results, const std::string& row,
                                            const std::string& column) {
  const Cell cell = make_cell(results, row, column);
  if (cell.values.empty()) return std::nullopt;
  return SampleSummary{cell.mean, cell.std, static_cast<long long>(cell.values.size())};
}

bool stats_by_default(const ExperimentResults& results) {
  if (results.model_configs.size() < 2) return false;
  bool any = false;
  for (const auto& row : results.model_configs)
    for (const auto& column : results.datasets) {
      const auto sample = results_sample(results, row, column);
      if (!sample) continue;
      if (sample->n < 2) return false;
      any = true;
    }
  return any;
}

std::string render_results_stats(const ExperimentResults& results, const Baseline& resolved) {
  const std::string baseline = resolved.row_of.empty() ? resolved.row : resolved.row + " at the same sweep values";
  StatsTable table;
  table.title = (results.heading.empty() ? results.name : results.heading) + ": " + name_of(results.metric) +
                ", each row − " + baseline + " (Welch)";
  table.rows = results.model_configs;
  table.columns = results.datasets;
  table.baseline = resolved.row;
  table.baseline_of = resolved.row_of;
  table.digits = metric_info(results.metric).digits;
  table.lookup = [&results](const std::string& row, const std::string& column) {
    return results_sample(results, row, column);
  };
  return render_stats_table(table) + "\nDifference of means (row − " + baseline +
         ") [95% confidence interval, Welch's t with Welch–Satterthwaite df], two-sided p of no difference; bold: "
         "p < 0.05. \"n too small\": fewer than 2 seeds on a side (no std, no test). See docs/report.md.\n";
}

}  // namespace repro
