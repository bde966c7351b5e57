#pragma once
// Options shared by `run` and `sweep` (the spec file, overrides and where to run), and by `eval` and `rollout`
// (trained runs among KEY=VALUE data overrides).
#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "run/runner.h"
#include "spec/experiment.h"

namespace repro {

// What a test build adds to `run` and `sweep` (tests/fault_injector.h, the repro-faults binary): its hidden
// options, what of them a --jobs child is given again, and the observer of the runs. repro has none.
class RunExtension {
 public:
  virtual ~RunExtension() = default;
  virtual void add_options(CLI::App& command) = 0;
  virtual std::vector<std::string> child_arguments() const = 0;
  // RunnerOptions::observer, asked once the command's other options are known.
  virtual const RunObserver* observer(const RunnerOptions& options) = 0;
};

struct RunArguments {
  std::string spec_path;               // "" with --tasks
  std::string tasks;                   // --tasks FILE: a frozen plan's task (with --index) instead of a spec
  std::vector<std::string> overrides;  // key=value
  std::string out = "runs";
  std::string profile;
  std::vector<std::string> datasets, rows;  // --datasets / --rows: a part of the grid
  std::string data_root;
  DeviceChoice device = DeviceChoice::Auto;
  int threads = 0;
  bool dry_run = false;
  std::string requeue_signal = "USR1";  // run/interrupt.h
  int max_restarts = 3;
  double checkpoint_minutes = 30;  // --checkpoint-minutes (children get the same value)
  double time_limit_minutes = 0;   // --time-limit: 0 none; the parent's alone (children get no limit)
  // Parallel runs (run/parallel.h)
  int64_t index = -1;       // --index I: with a spec, train only the plan's run at position I; with --tasks, task I
  int jobs = 0;             // --jobs N; 0: 1 on the CPU, devices x runs per device with CUDA
  int lanes = 1;            // --lanes K: runs at once in this process
  int threads_per_job = 0;  // 0: usable CPUs / jobs (or --threads)
  std::string devices;      // "0,1"; "": every visible CUDA device
  int runs_per_device = 1;
  RunExtension* extension = nullptr;  // a test build's options and observer; null in repro
};

void add_run_arguments(CLI::App& command, RunArguments& args);
// Every whole-number option's check, one rule: CLI11 prefixes the option's name, the validator says the value and
// what is allowed ("--steps: got 0: must be ≥ 1", "--steps: got 'many', expected a whole number ≥ 1"); its
// description is the option's type hint ("INT >= 1", "INT in 1-64"): give it with `hinted`.
CLI::Validator whole_number_at_least(int64_t minimum);
CLI::Validator whole_number_in(int64_t minimum, int64_t maximum);
// `option` checked by `validator`, whose description is its one type hint in --help: CLI11 writes the option's type
// and then each validator's description ("INT:INT ≥ 1:INT in [1 - 64]"); this writes "INT in 1-64", and
// "{a,b}" for a CLI::IsMember.
CLI::Option* hinted(CLI::Option* option, const CLI::Validator& validator);
// Loads the spec, applies the `key=value` overrides, chooses the profile ("" = none) and
// keeps the --datasets / --rows part of the grid (empty = all).
Experiment load_spec(const std::string& path, const std::vector<std::string>& overrides, const std::string& profile,
                     const std::vector<std::string>& datasets = {}, const std::vector<std::string>& rows = {});
// --datasets and --rows on `command`, comma-separated or repeated.
void add_selection_options(CLI::App& command, std::vector<std::string>& datasets, std::vector<std::string>& rows);
Experiment load_with_overrides(const RunArguments& args);
// A command's --threads (0 = default), refused above the usable CPUs (run/threads.h: check_cpu_request).
int checked_threads(int threads);
// `repro sweep`'s --seeds (when given, even as '') and --set axes, replacing the spec's seeds and adding axes.
void apply_sweep_arguments(Experiment& experiment, const std::optional<std::string>& seeds,
                           const std::vector<std::string>& axes);
// Also sets LibTorch's threads from the thread plan (run/parallel.h: plan_parallel) and, for --jobs, the
// children's command line.
RunnerOptions runner_options(const RunArguments& args);

// run_experiment, then (unless a dry run or a stopped run) the experiment's table:
// written to <out>/<experiment>[/<profile>]/table.md and printed. Returns the exit code.
int run_and_tabulate(const Experiment& experiment, const RunnerOptions& options);
// `run` and `sweep`'s callback: task --index of --tasks FILE (a --jobs child, a SLURM task: no table), else the
// spec's grid (`load` reads it, with sweep's --seeds and --set where given) and its table.
int run_command(const RunArguments& args, const std::function<Experiment()>& load, bool sweep_arguments = false);

// What the commands that read trained runs back (`eval`, `rollout`) take besides their own options.
struct TrainedRunArguments {
  std::vector<std::string> targets;  // run folders (or folders of runs) and KEY=VALUE data overrides, mixed
  std::string data_root;             // "": $REPRO_DATA, else ./datasets
  DeviceChoice device = DeviceChoice::Auto;
  int threads = 0;  // 0: the usable CPUs
};
// The subcommand `name` with its required positional `targets` (help: targets_doc); its own options follow.
CLI::App* add_trained_run_command(CLI::App& app, const std::string& name, const std::string& description,
                                  TrainedRunArguments& args, const std::string& targets_doc);
// --data-root, --device and --threads of such a command.
void add_trained_run_resources(CLI::App& command, TrainedRunArguments& args);
// The targets apart: a KEY=VALUE override has '=' and names no existing file; the rest are run folders.
struct RunTargets {
  std::vector<std::string> folders;  // in the order given
  std::vector<Setting> overrides;
};
RunTargets split_run_targets(const std::vector<std::string>& targets);

}  // namespace repro
