#include "run/status.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "record/event_file.h"
#include "record/folder.h"
#include "record/plan_record.h"
#include "record/run_record.h"
#include "record/steps_file.h"
#include "record/task_plan.h"
#include "run/lock.h"
#include "run/plan.h"
#include "run/tensorboard_log.h"
#include "spec/run_spec.h"
#include "train/checkpoint.h"
#include "train/history.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace {

std::string checkpoint_detail(const std::filesystem::path& path) {
  try {
    const CheckpointPosition at = peek_checkpoint(path);
    std::string text = "checkpoint after epoch " + std::to_string(at.epochs_done);
    if (at.mid_epoch_batches > 0)
      text +=
          " and " + std::to_string(at.mid_epoch_batches) + " batch(es) of epoch " + std::to_string(at.epochs_done + 1);
    return text;
  } catch (const Error& e) {
    return e.what();
  }
}

// The state a finished run's summary.json records; a record that cannot be read (damaged, of a newer repro, not a
// regular file) is `corrupt`, saying why, as repro report calls it; nullopt when it has none.
std::optional<RunStanding> finished_standing(const RunFolder& folder, const std::string& dir) {
  try {
    const std::optional<RunRecord> record = read_run_record_if_any(folder.summary_path());
    if (!record) return std::nullopt;
    return RunStanding{dir, record->status, record->message};
  } catch (const Error& e) {
    return RunStanding{dir, RunState::Corrupt, error_text(e)};
  }
}

std::vector<std::string> launches_in(const std::filesystem::path& folder) {
  std::vector<std::string> launches;
  const auto slurm = folder / "slurm";
  if (!std::filesystem::is_directory(slurm)) return launches;
  for (const auto& entry : std::filesystem::directory_iterator(slurm)) {
    const auto tasks_file = entry.path() / kTaskPlanFile;
    if (!std::filesystem::exists(tasks_file)) continue;
    try {
      const TaskPlan tasks = read_task_plan(tasks_file);
      const auto jobs_file = entry.path() / kSubmittedJobsFile;
      const std::string jobs = std::filesystem::exists(jobs_file)
                                   ? join(split_lines(read_regular_file(jobs_file, kRecordBytes, "a jobs.txt")), ",")
                                   : "";
      launches.push_back(
          "slurm/" + entry.path().filename().string() + ": " + std::to_string(tasks.runs.size()) + " runs in " +
          std::to_string(tasks.tasks()) + " array task(s), " +
          (jobs.empty() ? "not submitted (written by --dry-run, or sbatch refused it)" : "submitted as job " + jobs));
    } catch (const Error& e) {
      launches.push_back(e.what());
    }
  }
  std::sort(launches.begin(), launches.end());
  return launches;
}

// The last step a running run has logged: the event file's (written as each row is made), else steps.csv's (written
// at checkpoints); nullopt when neither holds a row.
std::optional<StepRow> last_step_logged(const RunFolder& folder) {
  std::optional<StepRow> last;
  try {
    if (std::filesystem::exists(folder.steps_path())) {
      const auto rows =
          parse_steps_csv(read_regular_file(folder.steps_path(), kLogBytes, "steps.csv"), folder.steps_path());
      if (!rows.empty()) last = rows.back();
    }
  } catch (const std::exception&) {  // damaged: the event file may still say
  }
  const auto events = folder.current_events_path();
  std::error_code ec;
  if (!event_files_available() || !std::filesystem::is_regular_file(events, ec)) return last;
  try {
    for (const auto& event : scan_event_bytes(read_regular_file(events, kLogBytes, "an event file")).events)
      if (event.kind == EventRecord::Kind::Scalar && event.name == "train/loss" && (!last || event.step > last->step)) {
        last = StepRow{};
        last->step = event.step, last->wall_time = event.wall_time;
      }
  } catch (const std::exception&) {
  }
  return last;
}

// "epoch 3 of 10, step 1234 of about 3000 (logged 2026-11-28 17:40:12 UTC)" for a running run: the planned epochs
// from spec.resolved.yaml, the epochs done from metrics.csv, the last step logged; what a file does not say is
// left out.
std::string progress_detail(const RunFolder& folder) {
  std::vector<std::string> parts;
  int64_t epochs = 0, done = 0, steps_per_epoch = 0;
  try {
    epochs = run_options(read_run_spec(folder.spec_path()).config).train.epochs;
  } catch (const std::exception&) {  // not written yet, or unreadable: the epochs planned are left out
  }
  try {
    if (std::filesystem::exists(folder.metrics_path())) {
      const auto history =
          parse_metrics_csv(read_regular_file(folder.metrics_path(), kLogBytes, "metrics.csv"), folder.metrics_path());
      if (!history.empty()) done = history.back().epoch, steps_per_epoch = history.front().step;
    }
  } catch (const std::exception&) {
  }
  const int64_t current = epochs > 0 ? std::min(done + 1, epochs) : done + 1;
  parts.push_back("epoch " + std::to_string(current) + (epochs > 0 ? " of " + std::to_string(epochs) : ""));
  if (const auto last = last_step_logged(folder)) {
    std::string step = "step " + std::to_string(last->step);
    if (steps_per_epoch > 0 && epochs > 0) step += " of about " + std::to_string(steps_per_epoch * epochs);
    parts.push_back(step + " (logged " + utc_text(last->wall_time) + ")");
  } else {
    parts.push_back("no step logged yet");
  }
  return join(parts, ", ");
}

}  // namespace

RunStanding run_standing(const std::filesystem::path& experiment_folder, const std::string& dir) {
  if (const auto link = first_link_below(experiment_folder, dir))  // `run` refuses it; its record is another's
    return RunStanding{dir, RunState::Link,
                       link->string() + " is a symbolic link to " + link_target(*link) +
                           ": not counted (move the link away; repro run trains this run in a folder of its own)"};
  const RunFolder folder(experiment_folder / dir);
  if (const auto holder = RunLock::holder(folder.dir()))  // a run being trained (again) may hold an old summary
    return RunStanding{dir, RunState::Running,
                       progress_detail(folder) + "; held by " + holder->describe() + " since " + holder->since};
  if (const std::string record = record_without_spec(folder); !record.empty())  // run refuses to train over it
    return RunStanding{
        dir, RunState::Corrupt,
        "spec.resolved.yaml is missing beside its " + record + ": not counted (repro run refuses to train over it)"};
  if (auto finished = finished_standing(folder, dir)) {
    if (is_finished(finished->state))  // a damaged event file, or another run's, is named (metrics.csv has the rows)
      if (const std::string problem = finished_event_file_problem(folder); !problem.empty())
        finished->detail += (finished->detail.empty() ? "" : "; ") + problem;
    return *finished;
  }
  if (std::filesystem::exists(folder.checkpoint_path()))
    return RunStanding{dir, RunState::Resumable, checkpoint_detail(folder.checkpoint_path())};
  return RunStanding{dir, RunState::Pending, ""};
}

ExperimentStatus experiment_status(const std::string& name, const std::filesystem::path& folder,
                                   const std::vector<std::string>& run_dirs) {
  ExperimentStatus status{name, folder, {}, launches_in(folder), std::filesystem::is_directory(folder)};
  for (const auto& dir : run_dirs) status.runs.push_back(run_standing(folder, dir));
  return status;
}

ExperimentStatus experiment_status(const std::string& name, const std::filesystem::path& folder,
                                   const std::vector<PlannedRun>& runs) {
  ExperimentStatus status{name, folder, {}, launches_in(folder), std::filesystem::is_directory(folder)};
  for (const auto& run : runs) {
    const std::string dir = run.subdir();
    try {  // a folder of another spec is no run of this plan: repro run refuses it
      const RunFolder run_folder(folder / dir);
      if (const auto changes = settings_changed_in(run, run_folder);
          !changes.empty() && !first_link_below(folder, dir)) {
        status.runs.push_back(RunStanding{
            dir, RunState::Inconsistent, "holds " + other_spec_text(changes) + ": not counted (repro run refuses it)"});
        continue;
      }
    } catch (const Error& e) {
      status.runs.push_back(RunStanding{dir, RunState::Corrupt, error_text(e)});
      continue;
    }
    status.runs.push_back(run_standing(folder, dir));
  }
  return status;
}

namespace {

namespace fs = std::filesystem;

// What lies below an --out or results folder: each plan.json, and the run folders of the summary.json files that no
// plan lists, by the folder of their experiment (a folder the plans do not name: records written by `repro run
// --index` before 0.7.1, or copied without their plan). Temporary folders are skipped and named.
struct FoundBelow {
  std::vector<fs::path> plans;
  std::map<fs::path, std::vector<std::string>> unplanned;  // experiment folder -> its run folders, relative to it
};

FoundBelow found_below(const fs::path& out) {
  if (!fs::is_directory(out)) throw Error(out.string() + ": no such folder of runs");
  FoundBelow found;
  RecordFiles files = find_record_files(out);
  found.plans = std::move(files.plans);
  const std::vector<fs::path>& summaries = files.summaries;
  std::set<fs::path> planned;  // run folders the plans list
  for (const auto& plan_path : found.plans) {
    try {
      for (const auto& run : read_plan_record(plan_path).runs)
        planned.insert((plan_path.parent_path() / run.dir_in_plan()).lexically_normal());
    } catch (const std::exception&) {  // read again, and refused, with the experiments' status
    }
  }
  for (const auto& summary : summaries) {
    const fs::path run = summary.parent_path().lexically_normal();
    if (planned.count(run)) continue;
    const fs::path experiment = run.parent_path().parent_path().parent_path();
    found.unplanned[experiment].push_back(run.lexically_relative(experiment).generic_string());
  }
  if (found.plans.empty() && found.unplanned.empty())
    throw Error(out.string() + ": no plan.json or summary.json below it (not a --out folder of repro run?)");
  return found;
}

// The identity of an unplanned run, from its record (nullopt when it cannot be read: kept whatever the selectors).
std::optional<RunId> recorded_id(const fs::path& run_folder) {
  try {
    if (const auto record = read_run_record_if_any(RunFolder(run_folder).summary_path())) return RunId(*record);
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace

std::vector<RunId> runs_planned_under(const std::filesystem::path& out) {
  const FoundBelow found = found_below(out);
  std::vector<RunId> runs;
  for (const auto& plan_path : found.plans)
    for (const auto& run : read_plan_record(plan_path).runs) runs.push_back(run);
  for (const auto& [experiment, dirs] : found.unplanned)
    for (const auto& dir : dirs)
      if (const auto id = recorded_id(experiment / dir)) runs.push_back(*id);
  return runs;
}

std::vector<ExperimentStatus> status_of_out(const std::filesystem::path& out,
                                            const std::function<bool(const RunId&)>& keep) {
  const FoundBelow found = found_below(out);
  std::vector<ExperimentStatus> experiments;
  for (const auto& plan_path : found.plans) {
    std::vector<std::string> dirs;
    for (const auto& run : read_plan_record(plan_path).runs)
      if (!keep || keep(run)) dirs.push_back(run.dir_in_plan());
    const std::string name = std::filesystem::relative(plan_path.parent_path(), out).string();
    experiments.push_back(experiment_status(name, plan_path.parent_path(), dirs));
  }
  for (const auto& [folder, all] : found.unplanned) {
    std::vector<std::string> dirs;
    for (const auto& dir : all) {
      const auto id = recorded_id(folder / dir);
      if (!keep || !id || keep(*id)) dirs.push_back(dir);
    }
    if (dirs.empty()) continue;
    ExperimentStatus status = experiment_status(fs::relative(folder, out).string(), folder, dirs);
    status.note =
        "no plan.json: the runs its records show (written by `repro run --index` before 0.7.1, or "
        "copied without their plan); runs planned but never started are not known";
    experiments.push_back(status);
  }
  std::sort(experiments.begin(), experiments.end(),
            [](const ExperimentStatus& a, const ExperimentStatus& b) { return fs::path(a.name) < fs::path(b.name); });
  return experiments;
}

int plan_runs_beyond(const std::filesystem::path& folder, const std::vector<std::string>& run_dirs,
                     const std::function<bool(const RunId&)>& keep) {
  const auto plan_path = plan_path_in(folder);
  if (!std::filesystem::exists(plan_path)) return 0;
  int beyond = 0;
  for (const auto& run : read_plan_record(plan_path).runs)
    if (keep(run) && std::find(run_dirs.begin(), run_dirs.end(), run.dir_in_plan()) == run_dirs.end()) ++beyond;
  return beyond;
}

std::string short_detail(const std::string& detail) {
  constexpr size_t kMost = 160;
  std::string line = detail.substr(0, detail.find('\n'));
  if (line.size() <= kMost && line.size() == detail.size()) return line;
  if (line.size() > kMost) {
    size_t cut = kMost;
    while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
    line.resize(cut);
  }
  return line + " …";
}

std::string render_status(const std::vector<ExperimentStatus>& experiments, bool all) {
  std::ostringstream text;
  for (const auto& e : experiments) {
    std::map<RunState, int> counts;
    for (const auto& run : e.runs) ++counts[run.state];
    text << e.name << " (" << e.folder.string() << "): " << e.runs.size() << " runs: " << counts[RunState::Complete]
         << " complete, " << counts[RunState::Running] << " running, "
         << counts[RunState::Resumable] + counts[RunState::Pending] << " pending (" << counts[RunState::Resumable]
         << " resumable), " << counts[RunState::Failed] << " failed, " << counts[RunState::Diverged] << " diverged";
    if (counts[RunState::Corrupt] > 0) text << ", " << counts[RunState::Corrupt] << " corrupt, not counted";
    if (counts[RunState::Inconsistent] > 0)
      text << ", " << counts[RunState::Inconsistent] << " of another spec, not counted";
    if (counts[RunState::Link] > 0) text << ", " << counts[RunState::Link] << " symbolic link(s), not counted";
    text << "\n";
    if (!e.note.empty()) text << "  " << e.note << "\n";
    if (!e.started) {  // a spec's plan under an --out where nothing ran: say so rather than list every run
      text << "  nothing has started: " << e.folder.string() << " does not exist (is --out right?)\n";
      if (!all) continue;
    }
    for (const auto& run : e.runs) {
      if (run.state == RunState::Complete && run.detail.empty() && !all) continue;
      const std::string state = name_of(run.state);
      text << "  " << state << std::string(state.size() < 11 ? 11 - state.size() : 1, ' ') << run.dir;
      if (!run.detail.empty()) text << "  " << short_detail(run.detail);
      text << "\n";
    }
    for (const auto& launch : e.launches) text << "  launch " << launch << "\n";
  }
  return text.str();
}

}  // namespace repro
