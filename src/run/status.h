#pragma once
// `repro status`: where every planned run of an experiment stands, read from its
// run folder only (summary.json, the lock, checkpoint.pt, metrics.csv, steps.csv, the event file), never from SLURM
// accounting: complete, diverged, failed, running (its epoch and last step logged, the lock's holder: host,
// pid, SLURM job), resumable (with the checkpoint's position) or pending.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "record/lifecycle.h"
#include "record/run_id.h"
#include "spec/grid.h"

namespace repro {

struct RunStanding {
  std::string dir;                     // relative to the experiment's folder: <dataset>/<model_config>/seed_<k>
  RunState state = RunState::Pending;  // its recorded state when finished or failed, else what its folder shows
  std::string detail;  // progress and holder, checkpoint position, failure message or what is wrong with it
};

struct ExperimentStatus {
  std::string name;              // experiment[/profile]
  std::filesystem::path folder;  // <out>/<experiment>[/<profile>]
  std::vector<RunStanding> runs;
  std::vector<std::string> launches;  // "slurm/<stamp>: N runs in T tasks, submitted as job 12" / "not submitted"
  bool started = true;                // false: `folder` does not exist (no run of the plan has begun)
  std::string note;                   // said under the count line ("" = nothing)
};

// In a launch folder (<experiment>/slurm/<stamp>/): the job ids sbatch gave, one per line, written by repro launch
// slurm after submitting; a folder without it was written by --dry-run (or sbatch refused the script).
inline constexpr const char* kSubmittedJobsFile = "jobs.txt";

RunStanding run_standing(const std::filesystem::path& experiment_folder, const std::string& dir);
// The runs of `run_dirs` (relative to `folder`).
ExperimentStatus experiment_status(const std::string& name, const std::filesystem::path& folder,
                                   const std::vector<std::string>& run_dirs);
// The runs of a spec's plan (`runs`, relative to `folder`) as the runs of `run_dirs` above, but that a run folder
// holding a run of another spec (what repro run refuses) is Inconsistent, naming the settings that differ.
ExperimentStatus experiment_status(const std::string& name, const std::filesystem::path& folder,
                                   const std::vector<PlannedRun>& runs);
// Every run the plan.json files under `out` list, and the runs of the records no plan lists (status' selectors are
// checked against them); throws repro::Error when `out` is no folder or holds neither. Temporary folders
// (`*.tmp-<pid>`: repro collect's staging) are skipped, and named once on stderr.
std::vector<RunId> runs_planned_under(const std::filesystem::path& out);
// Every experiment under `out`, with the runs `keep` keeps (all when empty; status --datasets/--rows/--seeds): each
// folder holding a plan.json, and each folder of records that no plan lists (listed from its records, with a note
// saying so: written by `repro run --index` before 0.7.1, or copied without their plan). Throws
// repro::Error when there is none.
std::vector<ExperimentStatus> status_of_out(const std::filesystem::path& out,
                                            const std::function<bool(const RunId&)>& keep = {});
// The runs plan.json in `folder` lists beyond `run_dirs` that `keep` keeps (a sweep written into the folder, seeds
// of another command): what `repro status SPEC` without that sweep's --set/--seeds does not show.
int plan_runs_beyond(const std::filesystem::path& folder, const std::vector<std::string>& run_dirs,
                     const std::function<bool(const RunId&)>& keep);
// A run's detail as a status line shows it: its first line, at most 160 characters, "…" where cut (a failed run's
// whole message is in its summary.json and log.txt; repro report shows a corrupt record's whole problem).
std::string short_detail(const std::string& detail);
// Per experiment a count line, then a line per run not complete (every run with `all`).
std::string render_status(const std::vector<ExperimentStatus>& experiments, bool all);

}  // namespace repro
