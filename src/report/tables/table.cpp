#include "report/tables/table.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "data/manifest.h"
#include "report/records/cell_folder.h"
#include "report/tables/significance.h"
#include "report/tables/stats.h"
#include "util/csv.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

namespace {

// "77.51 ± 0.44", "77.51 ± 0.44 (n=3; 1 pending)", "— (2 failed)".
std::string cell_text(const Cell& cell, Metric metric, size_t common_n, bool best) {
  const int digits = metric_info(metric).digits;
  const std::string others = status_text(cell, metric);
  if (cell.values.empty()) return "— (" + (others.empty() ? std::string("no runs") : others) + ")";
  std::string text =
      fixed_digits(cell.mean, digits) + " ± " + (std::isnan(cell.std) ? "n/a" : fixed_digits(cell.std, digits));
  if (best) text = "**" + text + "**";
  std::vector<std::string> notes;
  if (cell.values.size() != common_n) notes.push_back("n=" + std::to_string(cell.values.size()));
  if (!others.empty()) notes.push_back(others);
  if (!notes.empty()) text += " (" + join(notes, "; ") + ")";
  if (cell.partial) text += " †";
  return text;
}

// A line for the columns whose every row is at chance: each row's mean within two standard errors of always
// answering the most common class (its share from the dataset's manifest, the standard error of an accuracy on the
// run's examples, sqrt(p (1 - p) / n)); "" when there is none or the table is not an accuracy.
std::string chance_note(const ExperimentResults& results,
                        const std::map<std::string, std::map<std::string, Cell>>& cells) {
  if (results.metric != Metric::TestAcc && results.metric != Metric::ValAcc) return "";
  std::vector<std::string> columns;
  for (const auto& dataset : results.datasets) {
    double share = NAN;
    try {
      share = manifest(dataset).majority_share(results.metric == Metric::ValAcc ? "val" : "test");
    } catch (const std::exception&) {  // a dataset without a manifest: nothing to say
    }
    int64_t examples = 0;  // the fewest a counted run was measured on
    for (const auto& run : results.runs)
      if (run.dataset == dataset && is_counted(run) && run.examples > 0)
        examples = examples == 0 ? run.examples : std::min(examples, run.examples);
    if (!std::isfinite(share) || examples == 0) continue;
    const double band = 200 * std::sqrt(share * (1 - share) / static_cast<double>(examples));  // points
    bool any = false, all = true;
    for (const auto& [config, by_dataset] : cells) {
      const Cell& cell = by_dataset.at(dataset);
      if (cell.values.empty()) continue;
      any = true;
      all &= std::fabs(cell.mean - 100 * share) <= band;
    }
    if (any && all)
      columns.push_back(dataset + " (" + fixed_digits(100 * share, 1) + " %, ±" + fixed_digits(band, 1) +
                        " points on " + std::to_string(examples) + " examples)");
  }
  if (columns.empty()) return "";
  return "At chance: every row's mean on " + join(columns, ", ") +
         " lies within two standard errors of always answering the most common class; nothing was learned there.\n";
}

}  // namespace

std::string status_text(const Cell& cell, Metric metric) {
  std::map<std::string, int> by_text;  // in the order of their names, as tables have always listed them
  for (const auto& [state, count] : cell.other_status) by_text[name_of(state)] += count;
  for (const auto& [gap, count] : cell.gaps)
    by_text[gap == MetricGap::NoMetric ? "no " + (cell.missing.empty() ? name_of(metric) : cell.missing)
                                       : name_of(gap)] += count;
  std::vector<std::string> parts;
  for (const auto& [text, count] : by_text) parts.push_back(std::to_string(count) + " " + text);
  return join(parts, ", ");
}

std::string bad_records_text(const ExperimentResults& results) {
  std::string out;
  for (const auto& run : results.runs)
    if (is_bad_record(run)) out += "- " + name_of(run.state) + ": " + run.problem + "\n";
  return out.empty() ? out : "Records not counted (corrupt or inconsistent):\n" + out;
}

std::string other_folders_text(const ExperimentResults& results) {
  std::string out;
  for (const auto& line : results.other_folders) out += "- " + line + "\n";
  return out.empty() ? out
                     : "Cells that several results folders hold (" + std::string(kCellFolderRule) +
                           "; the others' runs are not counted):\n" + out;
}

std::string event_files_text(const ExperimentResults& results) {
  std::string out;
  for (const auto& run : results.runs)
    if (!run.events_problem.empty()) out += "- " + run.events_problem + "\n";
  return out.empty() ? out : "Damaged TensorBoard event files (the runs are counted from metrics.csv):\n" + out;
}

Cell make_cell(const ExperimentResults& results, const std::string& model_config, const std::string& dataset) {
  return make_cell(results, model_config, dataset, [](const RunResult&) { return true; });
}

Cell make_cell(const ExperimentResults& results, const std::string& model_config, const std::string& dataset,
               const std::function<bool(const RunResult&)>& keep) {
  Cell cell;
  std::set<int64_t> seeds;  // n counts distinct run records: a seed twice is a bug, not a larger n
  for (const auto& run : results.runs) {
    if (run.model_config != model_config || run.dataset != dataset || !keep(run)) continue;
    if (!seeds.insert(run.seed).second)
      throw Error(results.name + ": seed " + std::to_string(run.seed) + " of " + model_config + " on " + dataset +
                  " appears twice" + (run.path.empty() ? std::string() : " (" + run.path + ")"));
    cell.partial |= run.partial;
    if (is_counted(run)) {
      cell.values.push_back(run.value);
    } else if (run.gap != MetricGap::None) {
      ++cell.gaps[run.gap];
      if (run.gap == MetricGap::NoMetric && cell.missing.empty()) cell.missing = run.missing;
    } else {
      ++cell.other_status[run.state];
    }
  }
  cell.mean = mean(cell.values);
  cell.std = sample_std(cell.values);
  return cell;
}

std::string render_markdown(const ExperimentResults& results) {
  const Metric metric = results.metric;
  // The most common n across cells (the larger on a tie) is stated in the caption; others are marked.
  std::map<size_t, int> n_counts;
  std::map<std::string, std::map<std::string, Cell>> cells;
  for (const auto& config : results.model_configs)
    for (const auto& dataset : results.datasets) {
      cells[config][dataset] = make_cell(results, config, dataset);
      if (!cells[config][dataset].values.empty()) ++n_counts[cells[config][dataset].values.size()];
    }
  size_t common_n = 0;
  int most = -1;
  for (const auto& [n, count] : n_counts)
    if (count >= most) common_n = n, most = count;

  const std::string unit = metric_info(metric).unit;
  std::string out = "### " + (results.heading.empty() ? results.name : results.heading) + ": " + name_of(metric) +
                    (unit.empty() ? "" : " (" + unit + ")") + "\n\n";
  out += "| model |";
  for (const auto& dataset : results.datasets) out += " " + dataset + " |";
  out += "\n|---|";
  for (size_t i = 0; i < results.datasets.size(); ++i) out += "---|";
  out += "\n";
  std::set<std::string> partial_notes;
  for (const auto& config : results.model_configs) {
    out += "| " + config + " |";
    for (const auto& dataset : results.datasets) {
      const Cell& cell = cells[config][dataset];
      bool best = !cell.values.empty();
      for (const auto& other : results.model_configs) {
        const Cell& o = cells[other][dataset];
        if (o.values.empty()) continue;
        if (lower_is_better(metric) ? o.mean < cell.mean : o.mean > cell.mean) best = false;
      }
      out += " " + cell_text(cell, metric, common_n, best && results.model_configs.size() > 1) + " |";
    }
    out += "\n";
  }
  for (const auto& run : results.runs)
    for (const auto& note : run.notes) partial_notes.insert(note);
  // The selected epoch's rule (best_val: the highest validation accuracy, the earliest on a tie) is in
  // docs/report.md; the caption stays as committed reports have it.
  const std::string at = results.epoch == RecordEpoch::Final ? " at each run's final epoch (--epoch final)"
                                                             : " at each run's selected epoch";
  out += "\nMean ± sample std (ddof = 1) of " + name_of(metric) + at + " over n = " + std::to_string(common_n) +
         " seeds per cell (other n marked); best mean per column in bold.\n";
  out += chance_note(results, cells);
  if (!partial_notes.empty()) {
    out += "Data notes († marks cells with partial, subset or unverified data):\n";
    for (const auto& note : partial_notes) out += "- " + note + "\n";
  }
  out += bad_records_text(results);
  out += event_files_text(results);
  out += other_folders_text(results);
  return out;
}

std::string render_csv(const std::vector<ExperimentResults>& all) {
  std::string out = "experiment,model_config,dataset,metric,n,mean,std,ddof,other_runs,partial\n";
  for (const auto& results : all)
    for (const auto& config : results.model_configs)
      for (const auto& dataset : results.datasets) {
        const Cell cell = make_cell(results, config, dataset);
        out += csv_quoted(results.name) + "," + csv_quoted(config) + "," + csv_quoted(dataset) + "," +
               name_of(results.metric) + "," + std::to_string(cell.values.size()) + "," +
               (std::isnan(cell.mean) ? "" : fixed_digits(cell.mean, 6)) + "," +
               (std::isnan(cell.std) ? "" : fixed_digits(cell.std, 6)) + ",1," +
               csv_quoted(status_text(cell, results.metric)) + "," + (cell.partial ? "true" : "false") + "\n";
      }
  return out;
}

const EnumNames<ReportFormat>& enum_names(ReportFormat) {
  static const EnumNames<ReportFormat> names = {{ReportFormat::Markdown, "md"}, {ReportFormat::Csv, "csv"}};
  return names;
}

const EnumNames<StatsChoice>& enum_names(StatsChoice) {
  static const EnumNames<StatsChoice> names = {
      {StatsChoice::Auto, "auto"}, {StatsChoice::On, "on"}, {StatsChoice::Off, "off"}};
  return names;
}

std::string markdown_cell(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return trim(out);
}

std::string render_report(const std::filesystem::path& dir, const ReportOptions& options) {
  return render_report(collect_results(dir, options.metric), options);
}

std::string render_report(const std::vector<ExperimentResults>& all, const ReportOptions& options) {
  for (const auto& results : all)
    for (const auto& line : results.other_folders)
      spdlog::warn("a cell in several results folders: {} ({})", line, kCellFolderRule);
  if (options.format == ReportFormat::Csv) {  // no room for paths in the CSV: they go to stderr
    for (const auto& results : all)
      for (const auto& run : results.runs)
        if (is_bad_record(run)) spdlog::warn("{} record not counted: {}", name_of(run.state), run.problem);
    for (const auto& results : all)
      for (const auto& run : results.runs)
        if (!run.events_problem.empty()) spdlog::warn("damaged TensorBoard event file: {}", run.events_problem);
    return render_csv(all);
  }
  // --baseline applies to the experiments that have such a row; a name no experiment has is a mistake.
  // A row, or a spec row a sweep expanded (compared at the same sweep values).
  const auto names_a_row = [&](const ExperimentResults& results) {
    for (const auto& row : results.model_configs)
      if (row == options.baseline || starts_with(row, options.baseline + "+")) return true;
    return false;
  };
  bool baseline_found = options.baseline.empty();
  std::vector<std::string> rows;
  for (const auto& results : all) {
    baseline_found |= names_a_row(results);
    for (const auto& row : results.model_configs) rows.push_back(results.name + ": " + row);
  }
  if (!baseline_found)
    throw Error("--baseline: '" + options.baseline + "' is not a row (rows: " + join(rows, ", ") + ")");
  std::string out;
  for (size_t i = 0; i < all.size(); ++i) {
    out += (i ? "\n" : "") + render_markdown(all[i]) + all[i].selection_note;
    const bool stats =
        options.stats == StatsChoice::On || (options.stats == StatsChoice::Auto && stats_by_default(all[i]));
    if (!stats || all[i].model_configs.size() < 2) continue;
    const bool has_requested = !options.baseline.empty() && names_a_row(all[i]);
    try {
      out += "\n" + render_results_stats(all[i], resolve_baseline(all[i], has_requested ? options.baseline : ""));
    } catch (const Error& e) {  // a plan's stale report.baseline: this table goes without its Welch part, the rest on
      out += "\nNo Welch table: " + std::string(e.what()) + "; choose one with --baseline ROW.\n";
    }
  }
  return out;
}

}  // namespace repro
