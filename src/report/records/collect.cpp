#include "report/records/collect.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <set>

#include "record/folder.h"
#include "record/plan_record.h"
#include "report/records/cell_folder.h"
#include "report/records/read_record.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace fs = std::filesystem;

namespace {


// The runs a plan.json lists; a plan that cannot be read is skipped with a
// warning (its runs' summary.json files are still found and reported).
// `baseline` receives the plan's report.baseline ("" when it names none).
std::vector<std::pair<fs::path, PlanEntry>> planned_runs(const fs::path& plan_path, std::string& baseline) {
  std::vector<std::pair<fs::path, PlanEntry>> runs;
  try {
    const PlanRecord plan = read_plan_record(plan_path);
    baseline = plan.report_baseline;
    const fs::path root = plan_path.parent_path();  // run folders are relative to the plan
    for (const auto& e : plan.runs) {
      // A folder reached through a link stays as the plan names it (collect_results marks it, never counts it).
      const fs::path dir = root / e.dir_in_plan();
      runs.emplace_back(first_link_below(root, e.dir_in_plan()) ? dir : fs::weakly_canonical(dir), e);
    }
  } catch (const std::exception& e) {
    spdlog::warn("{}: unreadable plan ({}); its runs are reported from the summary.json files found",
                 plan_path.string(), error_text(e));
    return {};
  }
  return runs;
}

ExperimentResults& experiment_named(std::vector<ExperimentResults>& all, const std::string& name,
                                    const std::string& profile) {
  for (auto& e : all)
    if (e.name == name && e.profile == profile) return e;
  ExperimentResults added;
  added.name = name;
  added.profile = profile;
  all.push_back(added);
  return all.back();
}

// A record found, and the results folder holding it (canonical).
struct Found1 {
  RecordRead record;
  fs::path folder;
};

// Two records of one results folder claiming one (experiment, profile, model, dataset, seed) would count that seed
// twice; in two folders they are two sources of one cell (one_folder_per_cell).
void check_distinct(const std::vector<Found1>& records) {
  std::map<std::pair<fs::path, std::string>, std::string> path_of_key;  // (folder, claimed key) -> run folder
  for (const auto& [record, folder] : records) {
    if (record.claimed_key.empty()) continue;
    const auto [it, added] = path_of_key.emplace(std::make_pair(folder, record.claimed_key), record.result.path);
    if (added || it->second == record.result.path) continue;
    const RunResult& r = record.result;
    throw Error("two run records claim experiment '" + r.experiment + "', model '" + r.model_config + "', dataset '" +
                r.dataset + "', seed " + std::to_string(r.seed) + ": " + it->second + " and " + r.path +
                "; move one of them out of the folder being reported");
  }
}

// The results folder of a record no plan lists: the deepest plan's folder above it, else the folder above
// <dataset>/<model>/seed_<n>.
fs::path folder_of_unplanned(const fs::path& run_dir, const std::vector<fs::path>& plan_folders) {
  fs::path best;
  for (const auto& folder : plan_folders) {
    const fs::path relative = run_dir.lexically_relative(folder);
    if (!relative.empty() && *relative.begin() != ".." && folder.native().size() > best.native().size()) best = folder;
  }
  return best.empty() ? run_dir.parent_path().parent_path().parent_path() : best;
}

// "Transformer on newsgroups: counted from results/table2/gpu (5 complete); not from results/table2/cpu_newsgroups
// (1 complete); seed 0 in both". `runs` says each folder's runs of the cell by state.
std::string other_folders_line(const std::string& cell, const std::vector<CellHolder>& holders,
                               const std::map<std::string, std::string>& runs, const std::vector<std::string>& shared) {
  std::vector<std::string> others;
  for (size_t i = 1; i < holders.size(); ++i)
    others.push_back(holders[i].folder + " (" + runs.at(holders[i].folder) + ")");
  return cell + ": counted from " + holders.front().folder + " (" + runs.at(holders.front().folder) + "); not from " +
         join(others, ", ") +
         (shared.empty() ? "" : "; seed " + join(shared, ", ") + (holders.size() == 2 ? " in both" : " in several"));
}

// A planned run whose folder is, or lies below, a symbolic link: the record there belongs to the folder the link
// names (a copy of seed_0 as seed_1 would count one run twice). Listed with the bad records, never counted.
std::optional<RecordRead> link_record(const fs::path& plan_dir, const fs::path& run_dir, const PlanEntry& planned) {
  const auto link = first_link_below(plan_dir, run_dir.lexically_relative(plan_dir));  // fs::relative would follow it
  if (!link) return std::nullopt;
  RecordRead out;
  RunResult& r = out.result;
  r.id() = planned.id();
  r.row_index = static_cast<int>(planned.row_index);
  r.path = run_dir.string();
  r.state = RunState::Link;
  r.problem = link->string() + " is a symbolic link to " + link_target(*link) +
              ": not counted (a run folder is never a link; repro run refuses it too)";
  return out;
}

// A run's table row is its configuration: the spec row with its sweep values. That is its model_config, but for
// a plain run that a sweep adopted at one of its values (run/plan.cpp: the plain `vanilla` standing for
// `vanilla+lr=0.001`), whose folder keeps the plain name.
void name_by_configuration(RunResult& run) {
  if (!run.row.empty()) run.model_config = RunId::compose_model_config(run.row, run.sweep);
}

// Where several results folders hold runs of one cell (a configuration on a dataset), the runs of one folder are
// kept (cell_folder.h) and the others named in `other_folders`.
void one_folder_per_cell(ExperimentResults& experiment) {
  std::map<std::pair<std::string, std::string>, std::map<std::string, std::vector<size_t>>> cells;
  for (size_t i = 0; i < experiment.runs.size(); ++i) {
    const RunResult& run = experiment.runs[i];
    cells[{run.model_config, run.dataset}][run.results_folder].push_back(i);
  }
  std::set<size_t> dropped;
  for (const auto& [cell, folders] : cells) {
    if (folders.size() < 2) continue;
    std::vector<CellHolder> holders;
    std::map<std::string, std::string> runs_by_state;  // folder -> "5 complete", "1 corrupt, 4 pending"
    std::map<int64_t, int> seeds;                      // seed -> the folders holding it
    for (const auto& [folder, runs] : folders) {
      CellHolder holder{folder, 0, false, 0};
      std::map<std::string, int> states;
      for (const size_t i : runs) {  // complete runs: the same choice whatever the metric (--select reads two)
        const RunResult& run = experiment.runs[i];
        holder.counted += run.state == RunState::Complete, ++seeds[run.seed], ++states[name_of(run.state)];
      }
      std::vector<std::string> parts;
      for (const auto& [state, count] : states) parts.push_back(std::to_string(count) + " " + state);
      runs_by_state[folder] = join(parts, ", ");
      holders.push_back(holder);
    }
    std::sort(holders.begin(), holders.end(), held_before);
    for (size_t h = 1; h < holders.size(); ++h)
      for (const size_t i : folders.at(holders[h].folder)) dropped.insert(i);
    std::vector<std::string> shared;
    for (const auto& [seed, count] : seeds)
      if (count > 1) shared.push_back(std::to_string(seed));
    experiment.other_folders.push_back(
        other_folders_line(cell.first + " on " + cell.second, holders, runs_by_state, shared));
  }
  std::vector<RunResult> kept;
  for (size_t i = 0; i < experiment.runs.size(); ++i)
    if (!dropped.count(i)) kept.push_back(experiment.runs[i]);
  experiment.runs = kept;
}

void finish(std::vector<ExperimentResults>& all) {
  std::map<std::string, int> profiles_of_name;
  for (const auto& e : all) ++profiles_of_name[e.name];
  for (auto& experiment : all) {
    // Rows grouped by spec row (plain rows of an earlier plan beside a later sweep's), in spec order, then by
    // configuration.
    std::map<std::string, int> row_rank;  // spec row -> its smallest row_index
    const auto spec_row = [](const RunResult& r) { return r.row.empty() ? r.model_config : r.row; };
    for (auto& run : experiment.runs) name_by_configuration(run);
    one_folder_per_cell(experiment);
    for (auto& run : experiment.runs) {
      const auto [it, fresh] = row_rank.emplace(spec_row(run), run.row_index);
      if (!fresh) it->second = std::min(it->second, run.row_index);
    }
    std::stable_sort(experiment.runs.begin(), experiment.runs.end(), [&](const RunResult& a, const RunResult& b) {
      return std::make_pair(row_rank.at(spec_row(a)), a.row_index) <
             std::make_pair(row_rank.at(spec_row(b)), b.row_index);
    });
    for (const auto& r : experiment.runs) {
      add_unique(experiment.model_configs, r.model_config);
      add_unique(experiment.datasets, r.dataset);
    }
    experiment.heading = experiment.name;
    if (profiles_of_name[experiment.name] > 1 && !experiment.profile.empty())
      experiment.heading += " (profile " + experiment.profile + ")";
  }
}

}  // namespace

const EnumNames<RecordEpoch>& enum_names(RecordEpoch) {
  static const EnumNames<RecordEpoch> names = {{RecordEpoch::Selected, "selected"}, {RecordEpoch::Final, "final"}};
  return names;
}

const EnumNames<MetricGap>& enum_names(MetricGap) {
  static const EnumNames<MetricGap> names = {
      {MetricGap::None, ""}, {MetricGap::NoMetric, "no metric"}, {MetricGap::NotEvaluated, "not evaluated"}};
  return names;
}

bool is_counted(const RunResult& run) { return run.state == RunState::Complete && run.gap == MetricGap::None; }

bool is_bad_record(const RunResult& run) { return is_bad_record(run.state); }

std::vector<ExperimentResults> collect_results(const fs::path& dir, Metric metric, RecordEpoch epoch,
                                               const RunFilter& filter) {
  if (!fs::is_directory(dir)) throw Error(dir.string() + ": not a folder of run records");
  const RecordFiles found = find_record_files(dir);
  std::vector<Found1> records;
  std::set<fs::path> seen;  // run folders already accounted for
  std::vector<fs::path> plan_folders;
  std::map<fs::path, std::string> baselines;  // plan folder -> its report.baseline (for those that name one)
  std::map<fs::path, fs::path> plan_of;       // plan folder -> its plan.json as found
  for (const auto& plan_path : found.plans) {
    const fs::path folder = fs::weakly_canonical(plan_path.parent_path());
    plan_folders.push_back(folder);
    std::string baseline;
    for (const auto& [run_dir, planned] : planned_runs(plan_path, baseline)) {
      if (!seen.insert(run_dir).second) continue;  // listed by two plans: one record
      const auto link = link_record(plan_path.parent_path(), run_dir, planned);
      records.push_back({link ? *link : read_run_for_table(run_dir, metric, &planned, epoch), folder});
    }
    if (!baseline.empty()) baselines[folder] = baseline, plan_of[folder] = plan_path;
  }
  for (const auto& summary_path : found.summaries) {
    const fs::path run_dir = fs::weakly_canonical(summary_path.parent_path());
    if (!seen.insert(run_dir).second) continue;
    records.push_back(
        {read_run_for_table(run_dir, metric, nullptr, epoch), folder_of_unplanned(run_dir, plan_folders)});
  }
  if (records.empty()) throw Error(dir.string() + ": no run records (plan.json or summary.json) found");
  if (!filter.empty()) {  // the selectors first: a record they leave out is not matched with another
    std::vector<RunId> ids;
    for (const auto& r : records) ids.push_back(r.record.result);
    check_selects(ids, filter);
    records.erase(
        std::remove_if(records.begin(), records.end(), [&](const Found1& r) { return !filter.keeps(r.record.result); }),
        records.end());
  }
  check_distinct(records);
  const fs::path root = fs::weakly_canonical(dir);
  std::vector<ExperimentResults> all;
  for (auto& [record, folder] : records) {
    RunResult& run = record.result;
    run.results_folder = (dir / folder.lexically_relative(root)).lexically_normal().generic_string();
    if (!run.results_folder.empty() && run.results_folder.back() == '/') run.results_folder.pop_back();
    ExperimentResults& experiment = experiment_named(all, run.experiment, run.profile);
    experiment.runs.push_back(run);
    if (const auto b = baselines.find(folder); b != baselines.end())
      experiment.baseline = b->second, experiment.baseline_source = plan_of.at(folder).string();
  }
  for (auto& experiment : all) experiment.metric = metric, experiment.epoch = epoch;
  finish(all);
  return all;
}

}  // namespace repro
