#include "report/records/read_record.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "record/epoch_row.h"
#include "record/event_file.h"
#include "record/folder.h"
#include "record/plan_record.h"
#include "record/run_record.h"
#include "spec/run_spec.h"
#include "train/history.h"
#include "util/error.h"
#include "util/files.h"

namespace repro {

namespace fs = std::filesystem;

namespace {

// A problem found while checking: the record's state and what is wrong.
struct BadRecord {
  RunState state;  // Corrupt or Inconsistent
  std::string problem;
};

[[noreturn]] void corrupt(const fs::path& file, const std::string& what) {
  throw BadRecord{RunState::Corrupt, file.string() + ": " + what};
}

bool close(double a, double b) { return std::fabs(a - b) <= 1e-6 * std::max(1.0, std::fabs(b)); }

// The metric's value at a recorded epoch; NaN when the run did not measure it.
double epoch_metric(const RecordedEpoch& picked, Metric metric, const fs::path& file) {
  const auto it = picked.metrics.find(metric);
  if (it == picked.metrics.end()) corrupt(file, "lacks '" + name_of(metric) + "'");
  return it->second.value_or(NAN);
}

// metrics.csv must parse and agree with summary.json's epoch count and its `key` ("selected"/"final") epoch.
void check_metrics(const RunFolder& folder, const RunRecord& record, const std::optional<RecordedEpoch>& picked,
                   const std::string& key, Metric metric, double value) {
  const fs::path file = folder.metrics_path(), summary_file = folder.summary_path();
  if (!fs::exists(file)) {
    if (record.epochs_run == 0) return;  // diverged or failed in its first epoch
    corrupt(file, "is missing (summary.json says " + std::to_string(record.epochs_run) + " epochs ran)");
  }
  std::vector<EpochRow> rows;
  try {
    rows = parse_metrics_csv(read_regular_file(file, kRecordBytes, "a metrics.csv"), file);
  } catch (const Error& e) {
    throw BadRecord{RunState::Corrupt, e.what()};
  }
  if (static_cast<int64_t>(rows.size()) != record.epochs_run)
    throw BadRecord{RunState::Inconsistent, file.string() + " has " + std::to_string(rows.size()) + " epochs, " +
                                                summary_file.string() + " says " + std::to_string(record.epochs_run)};
  if (!picked) return;
  const int64_t epoch = picked->epoch;
  if (epoch < 1 || epoch > static_cast<int64_t>(rows.size()))
    corrupt(summary_file, key + " epoch " + std::to_string(epoch) + " is not among the " + std::to_string(rows.size()) +
                              " epochs of metrics.csv");
  const double in_csv = metric_value(rows[epoch - 1], metric);
  if (std::isnan(in_csv) != std::isnan(value) || (!std::isnan(value) && !close(in_csv, value)))
    throw BadRecord{RunState::Inconsistent, file.string() + " epoch " + std::to_string(epoch) + " has " +
                                                name_of(metric) + " " + std::to_string(in_csv) + ", " +
                                                summary_file.string() + " says " + std::to_string(value)};
}

// Fills `out` from the run record; throws BadRecord.
void take_record(const RunFolder& folder, const RunRecord& s, Metric metric, RecordEpoch epoch,
                 const PlanEntry* planned, RecordRead& out) {
  const fs::path file = folder.summary_path();
  RunResult& r = out.result;
  out.claimed_key = s.key();
  if (!planned) {
    r.id() = s.id();  // a record of 0.7.1 or later says its row and sweep values itself
    r.row_index = static_cast<int>(s.row_index);
  } else if (s.model_config != planned->model_config || s.dataset != planned->dataset || s.seed != planned->seed) {
    throw BadRecord{RunState::Inconsistent, file.string() + " holds " + s.model_config + " on " + s.dataset +
                                                ", seed " + std::to_string(s.seed) + "; plan.json expects " +
                                                planned->model_config + " on " + planned->dataset + ", seed " +
                                                std::to_string(planned->seed)};
  }
  r.partial = s.data.partial;
  r.notes = s.data.notes;
  r.examples = metric == Metric::ValAcc || metric == Metric::ValLoss ? s.data.val : s.data.test;
  r.state = s.status;
  if (s.status == RunState::Failed) return;
  if (s.selected) r.selected_epoch = s.selected->epoch;
  r.device = environment_summary(s);
  double value = NAN;
  const std::string key = name_of(epoch);  // "selected" | "final": summary.json's object of that epoch
  const std::optional<RecordedEpoch>& picked = epoch == RecordEpoch::Selected ? s.selected : s.final;
  if (s.status == RunState::Complete) {  // the record layer requires both objects of a complete run
    value = epoch_metric(*picked, metric, file);
    if (std::isnan(value))
      r.gap = MetricGap::NoMetric;  // e.g. val_acc without a validation split
    else
      r.value = value;
  }
  check_metrics(folder, s, picked, key, metric, value);
  r.events_problem = event_file_problem(folder.current_events_path());
}

// The experiment and profile that the record in `run_dir` names: its spec.resolved.yaml's, else its summary.json's.
std::optional<std::pair<std::string, std::string>> named_experiment(const fs::path& run_dir) {
  const RunFolder folder(run_dir);
  try {
    const RunSpec spec = read_run_spec(folder.spec_path());
    return std::make_pair(spec.experiment, spec.profile);
  } catch (const std::exception&) {
  }
  try {
    const RunRecord record = read_run_record(folder.summary_path());
    return std::make_pair(record.experiment, record.profile);
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// The experiment and profile of a run folder whose summary.json cannot be read. Its experiment folder
// (<experiment>[/<profile>]/<dataset>/<model>/seed_<k>: the folder of one experiment and profile) says them: the
// run's own spec.resolved.yaml, else the folder's plan.json, else the first run beside it (in path order) whose
// record names them. A profile folder's name is no experiment's: only when no file of the folder can be read does
// its name stand for the experiment.
std::pair<std::string, std::string> experiment_of(const fs::path& run_dir) {
  try {
    const RunSpec spec = read_run_spec(RunFolder(run_dir).spec_path());
    return {spec.experiment, spec.profile};
  } catch (const std::exception&) {
  }
  const fs::path experiment_dir = run_dir.parent_path().parent_path().parent_path();
  try {
    const PlanRecord plan = read_plan_record(plan_path_in(experiment_dir));
    return {plan.experiment, plan.profile};
  } catch (const std::exception&) {
  }
  std::vector<fs::path> beside;  // <dataset>/<model>/<seed> folders of the experiment folder
  std::error_code ec;
  for (fs::recursive_directory_iterator it(experiment_dir, ec), end; !ec && it != end; it.increment(ec))
    if (it.depth() == 2) {
      if (it->path() != run_dir) beside.push_back(it->path());
      it.disable_recursion_pending();
    }
  std::sort(beside.begin(), beside.end());
  for (const fs::path& other : beside)
    if (const auto named = named_experiment(other)) return *named;
  return {experiment_dir.filename().string(), ""};
}

// The cell a record without a readable summary belongs to: from the plan, else from its folder
// (RunId::from_dir: <dataset>/<model>/seed_<k>) in the experiment experiment_of() finds.
void place_by_plan_or_path(const fs::path& run_dir, const PlanEntry* planned, RecordRead& out) {
  RunResult& r = out.result;
  if (planned) return;
  const auto [experiment, profile] = experiment_of(run_dir);
  RunId fallback{experiment, profile, run_dir.parent_path().parent_path().filename().string(),
                 run_dir.parent_path().filename().string()};
  r.id() = RunId::from_dir(run_dir, experiment, profile).value_or(fallback);
  r.row_index = 1 << 20;  // after the planned rows
}

}  // namespace

RecordRead read_run_for_table(const fs::path& run_dir, Metric metric, const PlanEntry* planned, RecordEpoch epoch) {
  RecordRead out;
  RunResult& r = out.result;
  r.path = run_dir.string();
  if (planned) {
    r.id() = planned->id();
    r.row_index = static_cast<int>(planned->row_index);
  }
  const RunFolder folder(run_dir);
  if (!fs::exists(folder.summary_path())) {
    r.state = fs::exists(folder.checkpoint_path()) ? RunState::Resumable : RunState::Pending;
    return out;
  }
  try {
    RunRecord record;
    try {
      record = read_run_record(folder.summary_path());
    } catch (const Error& e) {
      throw BadRecord{RunState::Corrupt, e.what()};
    }
    take_record(folder, record, metric, epoch, planned, out);
  } catch (const BadRecord& bad) {
    if (out.claimed_key.empty() && !planned) place_by_plan_or_path(run_dir, planned, out);
    r.state = bad.state;
    r.gap = MetricGap::None;
    r.problem = bad.problem;
    r.value = 0;
  }
  return out;
}

std::string record_problem(const fs::path& run_dir) {
  const RecordRead read = read_run_for_table(run_dir, Metric::TestAcc, nullptr);
  return is_bad_record(read.result.state) ? read.result.problem : "";
}

}  // namespace repro
