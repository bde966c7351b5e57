#include "report/records/collect.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <set>

#include "record/folder.h"
#include "record/plan_record.h"
#include "report/records/read_record.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace fs = std::filesystem;

namespace {

struct Found {
  std::vector<fs::path> plans, summaries;
};

Found find_records(const fs::path& dir) {
  Found found;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename() == kPlanFile) found.plans.push_back(it->path());
    if (it->path().filename() == kSummaryFile) found.summaries.push_back(it->path());
  }
  if (ec) throw Error("cannot list " + dir.string() + ": " + ec.message());
  std::sort(found.plans.begin(), found.plans.end());
  std::sort(found.summaries.begin(), found.summaries.end());
  return found;
}

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

// Two folders claiming one (experiment, profile, model, dataset, seed) would count that seed twice.
void check_distinct(std::map<std::string, std::string>& folder_of_key, const RecordRead& record) {
  if (record.claimed_key.empty()) return;
  const auto [it, added] = folder_of_key.emplace(record.claimed_key, record.result.path);
  if (added || it->second == record.result.path) return;
  const RunResult& r = record.result;
  throw Error("two run records claim experiment '" + r.experiment + "', model '" + r.model_config + "', dataset '" +
              r.dataset + "', seed " + std::to_string(r.seed) + ": " + it->second + " and " + r.path +
              "; move one of them out of the folder being reported");
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

void finish(std::vector<ExperimentResults>& all) {
  std::map<std::string, int> profiles_of_name;
  for (const auto& e : all) ++profiles_of_name[e.name];
  for (auto& experiment : all) {
    // Rows grouped by spec row (plain rows of an earlier plan beside a later sweep's), in spec order, then by
    // configuration.
    std::map<std::string, int> row_rank;  // spec row -> its smallest row_index
    const auto spec_row = [](const RunResult& r) { return r.row.empty() ? r.model_config : r.row; };
    for (auto& run : experiment.runs) {
      name_by_configuration(run);
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

std::vector<ExperimentResults> collect_results(const fs::path& dir, Metric metric, RecordEpoch epoch) {
  if (!fs::is_directory(dir)) throw Error(dir.string() + ": not a folder of run records");
  const Found found = find_records(dir);
  std::vector<ExperimentResults> all;
  std::set<fs::path> seen;                           // run folders already accounted for
  std::map<std::string, std::string> folder_of_key;  // claimed key -> run folder
  for (const auto& plan_path : found.plans) {
    std::string baseline;
    for (const auto& [run_dir, planned] : planned_runs(plan_path, baseline)) {
      if (!seen.insert(run_dir).second) continue;  // listed by two plans: one record
      const auto link = link_record(plan_path.parent_path(), run_dir, planned);
      const RecordRead record = link ? *link : read_run_for_table(run_dir, metric, &planned, epoch);
      check_distinct(folder_of_key, record);
      ExperimentResults& experiment = experiment_named(all, record.result.experiment, record.result.profile);
      experiment.runs.push_back(record.result);
      if (!baseline.empty()) experiment.baseline = baseline, experiment.baseline_source = plan_path.string();
    }
  }
  for (const auto& summary_path : found.summaries) {
    const fs::path run_dir = fs::weakly_canonical(summary_path.parent_path());
    if (!seen.insert(run_dir).second) continue;
    const RecordRead record = read_run_for_table(run_dir, metric, nullptr, epoch);
    check_distinct(folder_of_key, record);
    experiment_named(all, record.result.experiment, record.result.profile).runs.push_back(record.result);
  }
  if (all.empty()) throw Error(dir.string() + ": no run records (plan.json or summary.json) found");
  for (auto& experiment : all) experiment.metric = metric, experiment.epoch = epoch;
  finish(all);
  return all;
}

}  // namespace repro
