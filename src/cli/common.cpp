#include "cli/common.h"

#include <spdlog/spdlog.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "cli/enum_option.h"
#include "report/table.h"
#include "run/parallel.h"
#include "run/threads.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"
#include "util/version.h"

namespace repro {

CLI::Validator whole_number_at_least(int64_t minimum) {
  const std::string bound = "≥ " + std::to_string(minimum);
  return CLI::Validator(
      [minimum, bound](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const long long value = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0' || errno == ERANGE)
          return "got '" + text + "', expected a whole number " + bound;
        return value < minimum ? "got " + text + ": must be " + bound : std::string();
      },
      "INT " + bound);
}

namespace {

// --checkpoint-minutes (≥ 0) and --time-limit (> 0): a finite number of minutes (may be fractional).
CLI::Validator minutes(bool zero_allowed) {
  const std::string bound = zero_allowed ? "≥ 0" : "> 0";
  return CLI::Validator(
      [zero_allowed, bound](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(value))
          return "got '" + text + "', expected a number of minutes " + bound;
        return value < 0 || (value == 0 && !zero_allowed) ? "got " + text + ": must be " + bound : std::string();
      },
      "MINUTES " + bound);
}

void add_parallel_arguments(CLI::App& command, RunArguments& args) {
  args.command = command.get_name();
  command
      .add_option("--jobs", args.jobs,
                  "Runs trained at once, each in its own process (default 1 on the CPU, devices x "
                  "--runs-per-device with CUDA)")
      ->check(whole_number_at_least(0));
  command
      .add_option("--threads-per-job", args.threads_per_job,
                  "LibTorch threads of each run (default: usable CPUs / jobs; same as --threads)")
      ->check(whole_number_at_least(0));
  command.add_option("--devices", args.devices, "CUDA devices for --jobs, e.g. 0,1 (default: every visible one)");
  command.add_option("--runs-per-device", args.runs_per_device, "Runs at once on one CUDA device (default 1)")
      ->check(whole_number_at_least(1));
  command  // visible: CLI11 leaves a hidden option's name out of its errors
      .add_option("--index", args.index,
                  "With --manifest: train the runs of this task; else only the run at this 0-based position of the "
                  "plan (how --jobs starts its children)")
      ->check(whole_number_at_least(0));
}

// spdlog's level as --log-level spells it.
std::string log_level_name() {
  switch (spdlog::get_level()) {
    case spdlog::level::trace:
      return "trace";
    case spdlog::level::debug:
      return "debug";
    case spdlog::level::info:
      return "info";
    case spdlog::level::warn:
      return "warn";
    case spdlog::level::off:
      return "off";
    default:
      return "error";
  }
}

// The command line of a --jobs child before its `--index I --threads T`: everything that decides the plan, where
// its runs go and how they run.
std::vector<std::string> child_arguments(const RunArguments& args) {
  std::vector<std::string> out{"--log-level", log_level_name(), args.command, args.spec_path};
  out.insert(out.end(), args.overrides.begin(), args.overrides.end());
  out.insert(out.end(), {"--out", args.out, "--device", name_of(args.device), "--requeue-signal", args.requeue_signal,
                         "--max-restarts", std::to_string(args.max_restarts), "--checkpoint-minutes",
                         args.checkpoint_minutes});
  if (!args.profile.empty()) out.insert(out.end(), {"--profile", args.profile});
  if (!args.datasets.empty()) out.insert(out.end(), {"--datasets", join(args.datasets, ",")});
  if (!args.rows.empty()) out.insert(out.end(), {"--rows", join(args.rows, ",")});
  if (!args.data_root.empty()) out.insert(out.end(), {"--data-root", args.data_root});
  if (args.extension) {
    const std::vector<std::string> extra = args.extension->child_arguments();
    out.insert(out.end(), extra.begin(), extra.end());
  }
  return out;
}

// --devices, or every visible CUDA device unless --device cpu; none on the CPU.
std::vector<int> chosen_devices(const RunArguments& args) {
  if (!args.devices.empty()) {
    if (args.device == DeviceChoice::Cpu) throw Error("--devices " + args.devices + ": not with --device cpu");
    if (!torch::cuda::is_available())
      throw Error("--devices " + args.devices + ": no CUDA device is available to this build (see repro --version)");
    return parse_devices(args.devices, "--devices");
  }
  std::vector<int> all;
  if (args.device != DeviceChoice::Cpu && torch::cuda::is_available())
    for (int id = 0; id < static_cast<int>(torch::cuda::device_count()); ++id) all.push_back(id);
  return all;
}

// Jobs, devices and threads of a run that trains (not a dry run): the thread plan is logged for --jobs.
void plan_parallel(const RunArguments& args, RunnerOptions& options) {
  ParallelOptions& parallel = options.parallel;
  if (args.index >= 0) {
    options.only_index = args.index;
  } else {
    parallel.devices = chosen_devices(args);
    parallel.runs_per_device = args.runs_per_device;
    const int device_slots = static_cast<int>(parallel.devices.size()) * args.runs_per_device;
    parallel.jobs = args.jobs > 0 ? args.jobs : std::max(1, device_slots);
  }
  if (args.threads > 0 && args.threads_per_job > 0 && args.threads != args.threads_per_job)
    throw Error("--threads " + std::to_string(args.threads) + " and --threads-per-job " +
                std::to_string(args.threads_per_job) +
                ": both set the LibTorch threads of each run (which change its results bit for bit); give one");
  const int threads_given = args.threads_per_job > 0 ? args.threads_per_job : args.threads;
  const ThreadPlan plan = plan_threads(read_cpu_limits(), parallel.jobs, threads_given);
  check_cpu_request(plan, threads_given, args.threads_per_job > 0 ? "--threads-per-job" : "--threads",
                    static_cast<int>(parallel.devices.size()) * args.runs_per_device);
  parallel.threads_per_job = plan.threads_per_job;
  configure_threads(plan.threads_per_job);
  if (parallel.jobs > 1 && !args.dry_run) spdlog::info("{}", plan.describe());
  std::error_code error;  // the binary's own path, so that `ps` shows what the children are
  if (const auto self = std::filesystem::read_symlink("/proc/self/exe", error); !error) parallel.executable = self;
  parallel.child_arguments = child_arguments(args);
  parallel.live_progress = options.live_progress;
  parallel.interrupt = options.interrupt;
}

}  // namespace

void add_run_arguments(CLI::App& command, RunArguments& args) {
  command.add_option("spec", args.spec_path, "Experiment spec (YAML)")->required();
  command.add_option("overrides", args.overrides, "Spec overrides KEY=VALUE, e.g. train.epochs=5");
  command.add_option("--out", args.out, "Folder of run records (default runs/)");
  command.add_option("--profile", args.profile, "A budget profile of the spec (e.g. smoke, short, paper)");
  add_selection_options(command, args.datasets, args.rows);
  command.add_option("--data-root", args.data_root, "Dataset folder (default $REPRO_DATA, else ./datasets)");
  add_enum_option(command, "--device", args.device);
  command
      .add_option("--threads", args.threads,
                  "CPU threads for LibTorch (default: the usable CPUs: affinity, cgroup quota, SLURM_CPUS_PER_TASK)")
      ->check(whole_number_at_least(0));
  command.add_flag("--dry-run", args.dry_run, "List the runs with their resolved settings and parameter counts");
  add_parallel_arguments(command, args);
  command.add_option("--requeue-signal", args.requeue_signal,
                     "USR1 | USR2: the signal that checkpoints mid-epoch and requeues the SLURM task (default USR1; "
                     "SIGTERM/SIGINT checkpoint and exit without requeue)");
  command
      .add_option("--max-restarts", args.max_restarts, "No requeue once $SLURM_RESTART_COUNT reaches this (default 3)")
      ->check(whole_number_at_least(0));
  command
      .add_option("--checkpoint-minutes", args.checkpoint_minutes,
                  "Also write a mid-epoch checkpoint when this many minutes of training have passed since the last "
                  "checkpoint, so that a SIGKILL loses at most that much (default 30; 0: only at epoch ends and on "
                  "SIGTERM/SIGINT/the requeue signal)")
      ->check(minutes(/*zero_allowed=*/true));
  command
      .add_option("--time-limit", args.time_limit_minutes,
                  "Minutes this command may take: no run starts that is expected to take longer than what is left "
                  "(the longest complete run of the same configuration, else dataset), and at the limit the runs "
                  "still training write a checkpoint and stop (exit 142; the same command resumes them; exit 3 when "
                  "runs were left unstarted). Default: none")
      ->check(minutes(/*zero_allowed=*/false));
  command.add_option("--manifest", args.manifest,
                     "With --index I: train the runs of task I of this manifest (written by repro launch slurm)");
  if (args.extension) args.extension->add_options(command);
}

void add_selection_options(CLI::App& command, std::vector<std::string>& datasets, std::vector<std::string>& rows) {
  command
      .add_option("--datasets", datasets,
                  "Only these datasets (table columns) of the spec's grid, e.g. rotten_tomatoes,imdb (default: all)")
      ->delimiter(',')
      ->allow_extra_args(false);  // one word a time: `--datasets imdb key=value` leaves key=value to the overrides
  command
      .add_option("--rows", rows,
                  "Only these rows (model configurations, by their spec name) of the grid, comma-separated (default: "
                  "all)")
      ->delimiter(',')
      ->allow_extra_args(false);
}

Experiment load_spec(const std::string& path, const std::vector<std::string>& overrides, const std::string& profile,
                     const std::vector<std::string>& datasets, const std::vector<std::string>& rows) {
  Experiment experiment = load_experiment(path);
  for (const auto& text : overrides) {
    const Setting setting = parse_override(text);
    for (const auto& earlier : experiment.overrides)
      if (earlier.key == setting.key)
        throw Error(setting.where + ": key '" + setting.key + "' is given twice on the command line (also " +
                    earlier.where + "); give it once");
    experiment.overrides.push_back(setting);
  }
  experiment.choose_profile(profile);
  experiment.select(datasets, rows);
  return experiment;
}

Experiment load_with_overrides(const RunArguments& args) {
  return load_spec(args.spec_path, args.overrides, args.profile, args.datasets, args.rows);
}

void apply_sweep_arguments(Experiment& experiment, const std::optional<std::string>& seeds,
                           const std::vector<std::string>& axes) {
  if (seeds) {
    experiment.seeds_where = "--seeds '" + *seeds + "'";
    experiment.seeds = parse_seeds(*seeds, experiment.seeds_where);
    experiment.seeds_selected = true;
  }
  for (const auto& axis : axes) experiment.axes.push_back(parse_axis(axis));
  experiment.axes_selected = !axes.empty();
}

CLI::App* add_trained_run_command(CLI::App& app, const std::string& name, const std::string& description,
                                  TrainedRunArguments& args, const std::string& targets_doc) {
  auto* command = app.add_subcommand(name, description);
  command->add_option("targets", args.targets, targets_doc)->required();
  return command;
}

void add_trained_run_resources(CLI::App& command, TrainedRunArguments& args) {
  command.add_option("--data-root", args.data_root, "Dataset folder (default $REPRO_DATA, else ./datasets)");
  add_enum_option(command, "--device", args.device);
  command.add_option("--threads", args.threads, "CPU threads for LibTorch (default and most: the usable CPUs)")
      ->check(whole_number_at_least(0));
}

RunTargets split_run_targets(const std::vector<std::string>& targets) {
  RunTargets split;
  for (const auto& target : targets)
    if (target.find('=') != std::string::npos && !std::filesystem::exists(target))
      split.overrides.push_back(parse_override(target));
    else
      split.folders.push_back(target);
  return split;
}

int checked_threads(int threads) {
  check_cpu_request(plan_threads(read_cpu_limits(), 1, 0), threads, "--threads");
  return threads;
}

RunnerOptions runner_options(const RunArguments& args) {
  RunnerOptions options;
  options.out = args.out;
  options.data_root = args.data_root;
  options.device = args.device;
  options.dry_run = args.dry_run;
  options.live_progress = ::isatty(STDOUT_FILENO);
  options.interrupt.requeue_signal = parse_requeue_signal(args.requeue_signal);
  options.interrupt.max_restarts = args.max_restarts;
  options.checkpoint_seconds = 60 * std::stod(args.checkpoint_minutes);  // checked by minutes(true)
  if (!args.time_limit_minutes.empty())
    options.time_limit = TimeLimit(60 * std::stod(args.time_limit_minutes));  // checked by minutes(false)
  if (!args.manifest.empty() && args.index < 0) throw Error("--manifest " + args.manifest + ": needs --index TASK");
  options.manifest = args.manifest;
  plan_parallel(args, options);
  if (args.extension) options.observer = args.extension->observer(options);
  return options;
}

int run_and_tabulate(const Experiment& experiment, const RunnerOptions& options) {
  const int exit_code = run_experiment(experiment, options);
  if (options.dry_run || exit_code == kRunStopped || interrupt_requested()) return exit_code;  // no table
  if (options.only_index) return exit_code;  // a child of --jobs: its parent prints the table
  const std::filesystem::path experiment_dir = options.out / experiment.folder();
  const std::string table = render_report(experiment_dir, ReportOptions{});
  write_file_atomic(experiment_dir / "table.md", table);
  std::cout << table;
  return exit_code;
}

}  // namespace repro
