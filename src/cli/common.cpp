#include "cli/common.h"

#include <spdlog/spdlog.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>

#include "cli/enum_option.h"
#include "report/tables/table.h"
#include "run/parallel.h"
#include "run/threads.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"
#include "util/version.h"

namespace repro {

CLI::Validator whole_number_in(int64_t minimum, int64_t maximum) {
  const std::string bound = maximum == std::numeric_limits<int64_t>::max()
                                ? "≥ " + std::to_string(minimum)
                                : "in " + std::to_string(minimum) + "-" + std::to_string(maximum);
  return CLI::Validator(
      [minimum, maximum, bound](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const long long value = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0' || errno == ERANGE)
          return "got '" + text + "', expected a whole number " + bound;
        return value < minimum || value > maximum ? "got " + text + ": must be " + bound : std::string();
      },
      maximum == std::numeric_limits<int64_t>::max() ? "INT >= " + std::to_string(minimum) : "INT " + bound);
}

CLI::Validator whole_number_at_least(int64_t minimum) {
  return whole_number_in(minimum, std::numeric_limits<int64_t>::max());
}

CLI::Option* hinted(CLI::Option* option, const CLI::Validator& validator) {
  option->type_name(validator.get_description());
  return option->check(validator.description(""));
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
      zero_allowed ? "MINUTES >= 0" : "MINUTES > 0");  // ASCII: --help aligns its columns by bytes
}

void add_parallel_arguments(CLI::App& command, RunArguments& args) {
  hinted(command.add_option("--jobs", args.jobs,
                            "Runs trained at once, each in its own process (default 1 on the CPU, devices x "
                            "--runs-per-device with CUDA)"),
         whole_number_at_least(0));
  hinted(command.add_option("--threads-per-job", args.threads_per_job,
                            "LibTorch threads of each run (default: usable CPUs / jobs; same as --threads)"),
         whole_number_at_least(0));
  hinted(command.add_option(
             "--lanes", args.lanes,
             "Runs trained at once in this process, each on its own thread (and CUDA stream), sharing the "
             "loaded data; each run's numbers are those it has alone (default 1; at most 64; not with --jobs)"),
         whole_number_in(1, 64));
  command.add_option("--devices", args.devices, "CUDA devices for --jobs, e.g. 0,1 (default: every visible one)");
  hinted(command.add_option("--runs-per-device", args.runs_per_device, "Runs at once on one CUDA device (default 1)"),
         whole_number_at_least(1));
  hinted(command.add_option("--index", args.index,  // visible: CLI11 leaves a hidden option's name out of its errors
                            "With --tasks: train the runs of this task; with a spec: only the run at this 0-based "
                            "position of its plan"),
         whole_number_at_least(0));
  command.add_option("--tasks", args.tasks,
                     "With --index I, instead of a spec: train task I of this frozen plan (tasks.json, written by "
                     "--jobs for its children and by repro launch slurm for its array tasks)");
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

// The command line of a --jobs child before its `--tasks FILE --index I --threads T`: where its run goes and how it
// runs. The spec, its overrides and the selection are not repeated: the child reads its run from tasks.json.
std::vector<std::string> child_arguments(const RunArguments& args) {
  std::vector<std::string> out{"--log-level",
                               log_level_name(),
                               "run",
                               "--out",
                               args.out,
                               "--device",
                               name_of(args.device),
                               "--requeue-signal",
                               args.requeue_signal,
                               "--max-restarts",
                               std::to_string(args.max_restarts),
                               "--checkpoint-minutes",
                               fmt::format("{}", args.checkpoint_minutes)};
  if (!args.data_root.empty()) out.insert(out.end(), {"--data-root", args.data_root});
  if (args.extension) {
    const std::vector<std::string> extra = args.extension->child_arguments();
    out.insert(out.end(), extra.begin(), extra.end());
  }
  return out;
}

// The parallel request of a command that trains: jobs, devices and threads checked and planned (run/parallel.h),
// and the children's command line for --jobs.
void plan_parallel_runs(const RunArguments& args, RunnerOptions& options) {
  if (args.index >= 0) options.only_index = args.index;
  ParallelRequest request;
  request.device = args.device;
  request.in_process = args.index >= 0;  // an --index run or task trains in this process
  request.jobs = args.jobs;
  request.lanes = args.lanes;
  request.threads = args.threads;
  request.threads_per_job = args.threads_per_job;
  request.devices = args.devices;
  request.runs_per_device = args.runs_per_device;
  request.log_plan = !args.dry_run;
  options.parallel = plan_parallel(request);
  std::error_code error;  // the binary's own path, so that `ps` shows what the children are
  if (const auto self = std::filesystem::read_symlink("/proc/self/exe", error); !error)
    options.parallel.executable = self;
  options.parallel.child_arguments = child_arguments(args);
  options.parallel.live_progress = options.live_progress;
  options.parallel.interrupt = options.interrupt;
}

}  // namespace

void add_run_arguments(CLI::App& command, RunArguments& args) {
  command.add_option("spec", args.spec_path, "Experiment spec (YAML); none with --tasks");
  command.add_option("overrides", args.overrides, "Spec overrides KEY=VALUE, e.g. train.epochs=5");
  command.add_option("--out", args.out, "Folder of run records (default runs/)");
  command.add_option("--profile", args.profile, "A budget profile of the spec (e.g. smoke, short, paper)");
  add_selection_options(command, args.datasets, args.rows);
  command.add_option("--data-root", args.data_root, "Dataset folder (default $REPRO_DATA, else ./datasets)");
  add_enum_option(command, "--device", args.device);
  hinted(command.add_option(
             "--threads", args.threads,
             "CPU threads for LibTorch (default: the usable CPUs: affinity, cgroup quota, SLURM_CPUS_PER_TASK)"),
         whole_number_at_least(0));
  command.add_flag("--dry-run", args.dry_run, "List the runs with their resolved settings and parameter counts");
  add_parallel_arguments(command, args);
  command.add_option("--requeue-signal", args.requeue_signal,
                     "USR1 | USR2: the signal that checkpoints mid-epoch and requeues the SLURM task (default USR1; "
                     "SIGTERM/SIGINT checkpoint and exit without requeue)");
  hinted(command.add_option("--max-restarts", args.max_restarts,
                            "No requeue once $SLURM_RESTART_COUNT reaches this (default 3)"),
         whole_number_at_least(0));
  hinted(command.add_option(
             "--checkpoint-minutes", args.checkpoint_minutes,
             "Also write a mid-epoch checkpoint when this many minutes of training have passed since the last "
             "checkpoint, so that a SIGKILL loses at most that much (default 30; 0: only at epoch ends and on "
             "SIGTERM/SIGINT/the requeue signal)"),
         minutes(/*zero_allowed=*/true));
  hinted(command.add_option(
             "--time-limit", args.time_limit_minutes,
             "Minutes this command may take: no run starts that is expected to take longer than what is left "
             "(the longest complete run of the same configuration, else dataset), and at the limit the runs "
             "still training write a checkpoint and stop (exit 142; the same command resumes them; exit 3 when "
             "runs were left unstarted). Default: none"),
         minutes(/*zero_allowed=*/false));
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
  hinted(command.add_option("--threads", args.threads, "CPU threads for LibTorch (default and most: the usable CPUs)"),
         whole_number_at_least(0));
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
  options.checkpoint_seconds = 60 * args.checkpoint_minutes;  // checked by minutes(true)
  if (args.time_limit_minutes > 0) options.time_limit = TimeLimit(60 * args.time_limit_minutes);
  options.tasks = args.tasks;
  plan_parallel_runs(args, options);
  if (args.extension) options.observer = args.extension->observer(options);
  return options;
}

namespace {

// --tasks FILE --index I trains what the file froze: nothing that plans a grid may come with it.
void check_task_arguments(const RunArguments& args, bool sweep_arguments) {
  const std::string with = "--tasks " + args.tasks + ": ";
  if (args.index < 0) throw Error(with + "needs --index TASK (the task of the frozen plan to train)");
  const std::vector<std::pair<bool, std::string>> planning = {
      {!args.spec_path.empty(), "a spec (" + args.spec_path + ")"},
      {!args.overrides.empty(), "overrides (" + join(args.overrides, " ") + ")"},
      {!args.profile.empty(), "--profile"},
      {!args.datasets.empty(), "--datasets"},
      {!args.rows.empty(), "--rows"},
      {sweep_arguments, "--seeds / --set"},
      {args.dry_run, "--dry-run"},
      {args.jobs > 1, "--jobs"}};
  for (const auto& [given, what] : planning)
    if (given)
      throw Error(with + "not with " + what +
                  ": the task's runs and settings are frozen in the file (plan a grid "
                  "with a spec instead)");
}

}  // namespace

int run_command(const RunArguments& args, const std::function<Experiment()>& load, bool sweep_arguments) {
  if (!args.tasks.empty()) {
    check_task_arguments(args, sweep_arguments);
    return run_task(args.tasks, args.index, runner_options(args));  // a --jobs child or a SLURM task: no table
  }
  if (args.spec_path.empty()) throw Error("run: a spec file is required (or --tasks FILE --index I)");
  return run_and_tabulate(load(), runner_options(args));
}

int run_and_tabulate(const Experiment& experiment, const RunnerOptions& options) {
  const int exit_code = run_experiment(experiment, options);
  if (options.dry_run || exit_code == kRunStopped || interrupt_requested()) return exit_code;  // no table
  if (options.only_index) return exit_code;  // one run of the grid: the table is the whole command's
  const std::filesystem::path experiment_dir = options.out / experiment.folder();
  const std::string table = render_report(experiment_dir, ReportOptions{});
  write_file_atomic(experiment_dir / "table.md", table);
  std::cout << table;
  return exit_code;
}

}  // namespace repro
