#pragma once
// Executes an experiment's grid: skips finished runs, resumes interrupted ones,
// trains the rest, then writes and prints the experiment's table.
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

// Returns the process exit code: 0 when every run is complete or diverged.
int run_experiment(const Experiment& experiment, const RunnerOptions& options);

}  // namespace repro
