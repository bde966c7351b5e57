#include "report/tables/against.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "record/folder.h"
#include "report/tables/stats.h"
#include "spec/run_spec.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace {

// (experiment, profile, model configuration, dataset): one cell of a table.
using CellKey = std::tuple<std::string, std::string, std::string, std::string>;

struct Counted {
  std::map<CellKey, std::map<int64_t, const RunResult*>> by_cell;  // cell -> seed -> its counted run
  std::vector<CellKey> order;                                      // cells in table order
};

Counted counted_runs(const std::vector<ExperimentResults>& all) {
  Counted out;
  for (const auto& results : all)
    for (const auto& row : results.model_configs)
      for (const auto& dataset : results.datasets)
        for (const auto& run : results.runs) {
          if (run.model_config != row || run.dataset != dataset || !is_counted(run)) continue;
          const CellKey key{results.name, results.profile, row, dataset};
          if (!out.by_cell.count(key)) out.order.push_back(key);
          out.by_cell[key][run.seed] = &run;
        }
  return out;
}

double seed_std(const std::map<int64_t, const RunResult*>& seeds) {
  std::vector<double> values;
  for (const auto& [seed, run] : seeds) values.push_back(run->value);
  return sample_std(values);  // NaN below 2 seeds
}

std::string text_or_unknown(const std::string& text) { return text.empty() ? "?" : text; }

std::string signed_number(double value) { return (value >= 0 ? "+" : "") + format_double(value, "%.2f"); }

// The settings two twins were trained under that differ (spec/run_spec.h: keys that differ by design, such as
// train.precision or data.files, aside); empty when they agree or were not read from folders. A spec that cannot be
// read is one line saying so (the pair is then not judged either).
std::vector<SettingChange> twin_differences(const RunResult& ours, const RunResult& other) {
  if (ours.path.empty() || other.path.empty()) return {};
  const auto spec_of = [](const RunResult& run) {
    return read_regular_file(RunFolder(run.path).spec_path(), kSpecBytes, "a run's spec.resolved.yaml");
  };
  try {
    return setting_differences(spec_of(other), spec_of(ours), /*ignore_by_design=*/true);
  } catch (const std::exception& e) {
    SettingChange unread;
    unread.problem = "not compared: " + error_text(e);
    return {unread};
  }
}

// The runs of `all` whose records cannot be trusted (corrupt: damaged or of a newer repro; inconsistent; a link),
// one line each naming the file and why.
std::vector<std::string> bad_records(const std::vector<ExperimentResults>& all) {
  std::vector<std::string> lines;
  for (const auto& results : all)
    for (const auto& run : results.runs)
      if (is_bad_record(run)) lines.push_back(name_of(run.state) + ": " + run.problem);
  return lines;
}

}  // namespace

std::string against_report(const std::vector<ExperimentResults>& ours, const std::vector<ExperimentResults>& other,
                           const std::string& ours_name, const std::string& other_name, Metric metric) {
  const Counted a = counted_runs(ours), b = counted_runs(other);
  std::string out = "\n### " + ours_name + " against " + other_name + ", seed by seed (" + name_of(metric) + ")\n\n";
  out += "Δ = " + ours_name + " − " + other_name +
         ". Within seed noise: |Δ| ≤ 2 × the sample std over the seeds of the other's cell (this side's when the "
         "other has fewer than 2 seeds).\n\n";
  out +=
      "| model | dataset | seed | ours | other | Δ | selected epoch (ours / other) | device (ours / other) | 2 × std "
      "| |\n|---|---|---|---|---|---|---|---|---|---|\n";
  int pairs = 0, within = 0, outside = 0, unjudged = 0, only_ours = 0, only_other = 0, not_twins = 0;
  for (const auto& key : a.order) {
    const auto& ours_seeds = a.by_cell.at(key);
    const auto match = b.by_cell.find(key);
    if (match == b.by_cell.end()) {
      only_ours += static_cast<int>(ours_seeds.size());
      continue;
    }
    double spread = seed_std(match->second);
    if (!std::isfinite(spread)) spread = seed_std(ours_seeds);
    const auto& [experiment, profile, row, dataset] = key;
    for (const auto& [seed, run] : ours_seeds) {
      const auto twin = match->second.find(seed);
      if (twin == match->second.end()) {
        ++only_ours;
        continue;
      }
      ++pairs;
      const double delta = run->value - twin->second->value;
      std::string verdict = "no std (n < 2)";
      const auto changes = twin_differences(*run, *twin->second);
      if (!changes.empty()) {  // not the same run trained twice: the seed noise says nothing about it
        ++not_twins;
        verdict = "**other settings**: " + changes_text(changes);
      } else if (std::isfinite(spread)) {
        const bool near = std::abs(delta) <= 2 * spread;
        verdict = near ? "within seed noise" : "**outside**";
        ++(near ? within : outside);
      } else {
        ++unjudged;
      }
      out += "| " + row + " | " + dataset + " | " + std::to_string(seed) + " | " + format_double(run->value, "%.2f") + " | " +
             format_double(twin->second->value, "%.2f") + " | " + signed_number(delta) + " | " +
             std::to_string(run->selected_epoch) + " / " + std::to_string(twin->second->selected_epoch) + " | " +
             text_or_unknown(run->device) + " / " + text_or_unknown(twin->second->device) + " | " +
             (std::isfinite(spread) ? format_double(2 * spread, "%.2f") : "—") + " | " + verdict + " |\n";
    }
  }
  for (const auto& [key, seeds] : b.by_cell)
    for (const auto& [seed, run] : seeds)
      if (!a.by_cell.count(key) || !a.by_cell.at(key).count(seed)) ++only_other;
  if (pairs == 0) out += "| (no run is in both) | | | | | | | | | |\n";
  out += "\n" + std::to_string(pairs) + " pairs: " + std::to_string(within) + " within seed noise, " +
         std::to_string(outside) + " outside, " + std::to_string(unjudged) + " without a std" +
         (not_twins > 0 ? ", " + std::to_string(not_twins) +
                              " trained under other settings (not judged: the same run trained twice differs only "
                              "in where it ran)"
                        : std::string()) +
         ". Not paired: " + std::to_string(only_ours) + " complete run(s) only in " + ours_name + ", " +
         std::to_string(only_other) + " only in " + other_name + ".\n";
  const auto bad = bad_records(other);
  if (!bad.empty()) {
    out += "\n" + std::to_string(bad.size()) + " record(s) of " + other_name + " cannot be trusted, not paired:\n\n";
    for (const auto& line : bad) out += "- " + line + "\n";
  }
  return out;
}

}  // namespace repro
