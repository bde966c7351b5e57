#pragma once
// One run of a plan trained in this process, from its claimed folder to its records: its log, its data (shared by
// the command: run/shared_data.h), its model built from its seed, the trainer with the hooks that write metrics.csv,
// steps.csv, the TensorBoard event file and model.pt, then summary.json. The executors of run/executor.h call it:
// the in-process one on its lanes' threads, one run per lane at a time.
#include <atomic>
#include <filesystem>
#include <functional>
#include <mutex>
#include <set>
#include <string>

#include "record/folder.h"
#include "record/lifecycle.h"
#include "run/executor.h"
#include "run/shared_data.h"
#include "spec/grid.h"
#include "train/progress.h"

namespace repro {

// What the runs of one command share, whichever lane trains them.
struct CommandState {
  CommandState(const RunnerOptions& options, torch::Device device, const std::filesystem::path& data_root, int lanes)
      : options(options), device(device), data(data_root, device, static_cast<size_t>(lanes)), lanes(lanes) {}

  const RunnerOptions& options;
  torch::Device device;
  SharedData data;
  int lanes = 1;                       // runs trained at once in this process (environment records say it)
  std::atomic<int64_t> steps_made{0};  // optimizer steps in this process, for the requeue guard
  std::atomic<bool> stop{false};       // a lane hit an error that stops the command: the others checkpoint and stop

  // Each warning once per command on the console (data notes too): true the first time `text` is said.
  bool first_time(const std::string& text);
  // The set of what was said, for a function that keeps it itself (one lane at a time).
  void with_said(const std::function<void(std::set<std::string>&)>& use);

 private:
  std::mutex said_mutex_;
  std::set<std::string> said_;
};

// One run of the command: where it is in the plan, its folder, and how the console names it ("" for a run alone in
// its process; "run 3" beside other lanes).
struct RunAt {
  const PlannedRun& run;
  int64_t position;  // in the plan, 0-based
  RunFolder folder;
  std::string label;
};

// Trains the claimed run `at` and writes its records; returns its state (Interrupted: checkpointed, to resume).
// Throws what the run threw (record_failure records it), WriteError included.
RunState train_run(const RunAt& at, CommandState& command, Progress& progress);

// Records a run that threw as `failed` with its one-line reason (the full text, trace included, in log.txt).
void record_failure(const RunAt& at, const CommandState& command, const std::exception& e);

}  // namespace repro
