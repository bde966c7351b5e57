#pragma once
// How a plan's runs are trained. The plan (run/plan.h) is made once per command; an Executor trains its runs not
// yet finished, one kind per way:
//   in_process_executor  in this process (repro run; --index; each task of --tasks), by --lanes K lanes: K threads
//                        that take the plan's runs in its order, each run as it trains alone (run/train_run.h: its
//                        own log, generators, CUDA stream and records; the data shared); one lane on this thread
//   children_executor    each in a child process, --jobs N at once: the plan is frozen into tasks.json and each
//                        child trains its task with `repro run --tasks FILE --index I` (run/parallel.cpp); no child
//                        reads the spec file or expands the grid
//   slurm_executor       as a SLURM job array (`repro launch slurm`): the plan frozen the same way, the sbatch
//                        scripts written beside tasks.json and submitted; each array task runs `repro run --tasks
//                        FILE --index $SLURM_ARRAY_TASK_ID`, in process (run/slurm.h)
// Every executor is handed a plan made by the one prologue, run/runner.h's prepare_plan.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "run/device_choice.h"
#include "run/interrupt.h"
#include "run/parallel.h"
#include "run/plan.h"
#include "run/time_limit.h"
#include "train/observer.h"

namespace repro {

struct RunnerOptions {
  std::filesystem::path out = "runs";
  std::string data_root;  // "" -> $REPRO_DATA -> ./datasets
  DeviceChoice device = DeviceChoice::Auto;
  bool dry_run = false;
  bool live_progress = false;  // stdout is a terminal
  InterruptPolicy interrupt;   // SIGTERM/SIGINT/requeue signal: mid-epoch checkpoint, requeue under SLURM
  // --index I with a spec: train only the run at 0-based position I of the grid's plan, in this process (the whole
  // plan.json is still written). With --tasks FILE: the task of that frozen plan to train.
  std::optional<int64_t> only_index;
  // --tasks FILE: a frozen plan (record/task_plan.h) of a --jobs parent or of repro launch slurm.
  std::filesystem::path tasks;
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

// The exit codes of an executor: 0 when every run is complete or diverged (or held by another process), 1 when a
// run failed, kRunStopped (3) when its RunObserver stopped a run (no signal) or --time-limit left a run unstarted;
// after a signal (run/interrupt.h; the time limit's SIGALRM included) 0 when the SLURM task was requeued, else 128 +
// the signal.
constexpr int kRunStopped = 3;

class Executor {
 public:
  virtual ~Executor() = default;
  // Trains the plan's runs not finished (Plan::to_train) and returns the exit code.
  virtual int execute(const Plan& plan) = 0;
};

// options.parallel.lanes runs at once (1: one after another, on the calling thread).
std::unique_ptr<Executor> in_process_executor(const RunnerOptions& options);
// Freezes the runs to train into <out>/<experiment folder>/jobs/<pid>/tasks.json (removed when they end) and trains
// each in a child process (run/parallel.h).
std::unique_ptr<Executor> children_executor(const RunnerOptions& options);
struct SlurmSubmission;
// Freezes the runs to train into <out>/<experiment folder>/slurm/<stamp>/tasks.json, writes the job array's scripts
// and submits them (run/slurm.h; the exit code is 0 once submitted, or with nothing to launch).
std::unique_ptr<Executor> slurm_executor(const SlurmSubmission& submission);

}  // namespace repro
