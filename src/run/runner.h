#pragma once
// Executes an experiment's grid: skips finished runs, resumes interrupted ones,
// trains the rest. The table is the report layer's (cli: run_and_tabulate).
#include <filesystem>
#include <string>

#include "spec/experiment.h"

namespace repro {

struct RunnerOptions {
  std::filesystem::path out = "runs";
  std::string data_root;  // "" -> $REPRO_DATA -> ./datasets
  std::string device = "auto";
  bool dry_run = false;
  bool live_progress = false;    // stdout is a terminal
  int64_t stop_after_epoch = 0;  // test hook: stop each run after this epoch
  int64_t kill_at_step = 0;      // test hook: SIGKILL the process at this optimizer step
};

// Returns the process exit code: 0 when every run is complete or diverged (or held
// by another process), 1 when a run failed, 3 when a test hook stopped a run.
constexpr int kRunStopped = 3;
int run_experiment(const Experiment& experiment, const RunnerOptions& options);

}  // namespace repro
