#pragma once
// Executes an experiment's grid: skips finished runs, resumes interrupted ones,
// trains the rest. The table is the report layer's (cli: run_and_tabulate).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "run/device_choice.h"
#include "run/interrupt.h"
#include "run/parallel.h"
#include "run/time_limit.h"
#include "spec/experiment.h"
#include "train/observer.h"

namespace repro {

struct RunnerOptions {
  std::filesystem::path out = "runs";
  std::string data_root;  // "" -> $REPRO_DATA -> ./datasets
  DeviceChoice device = DeviceChoice::Auto;
  bool dry_run = false;
  bool live_progress = false;  // stdout is a terminal
  InterruptPolicy interrupt;   // SIGTERM/SIGINT/requeue signal: mid-epoch checkpoint, requeue under SLURM
  // --index I: train only the run at 0-based position I of expand_grid's plan, in this
  // process, without writing plan.json (a child of --jobs, or one task of a SLURM array).
  std::optional<int64_t> only_index;
  // --manifest M (repro launch slurm): only_index is then the manifest's task, whose rows name
  // the runs by folder (run/slurm.h).
  std::filesystem::path manifest;
  // --jobs N > 1: each run in its own child process (run/parallel.h), N at once.
  ParallelOptions parallel;
  // --checkpoint-minutes × 60: a mid-epoch checkpoint once this long has passed since the last one (0: only at epoch
  // ends and on a signal).
  double checkpoint_seconds = 1800;
  // --time-limit: no run starts that is expected to outlast it; at the limit the runs stop with a checkpoint
  // (run/time_limit.h). Counted from when the command started; none by default.
  TimeLimit time_limit;
  // Watches every run from inside the trainer: null in repro; the tests' fault injector (tests/fault_injector.h).
  const RunObserver* observer = nullptr;
};

// Returns the process exit code: 0 when every run is complete or diverged (or held
// by another process), 1 when a run failed, 3 when its RunObserver stopped a run (no signal) or
// --time-limit left a run unstarted; after a signal (run/interrupt.h; the time limit's SIGALRM
// included) 0 when the SLURM task was requeued, else 128 + the signal.
constexpr int kRunStopped = 3;
int run_experiment(const Experiment& experiment, const RunnerOptions& options);

// The runs at `positions` (0-based, into expand_grid's plan) trained one after another in this
// process, as `--index` does: their models are built and their folders checked first (a folder
// of another spec throws), finished ones are skipped, each is claimed by its lock. plan.json is
// not written. Throws repro::Error naming the position when one is outside the plan. Exit code
// as run_experiment's.
int run_positions(const Experiment& experiment, const std::vector<size_t>& positions, const RunnerOptions& options);

}  // namespace repro
