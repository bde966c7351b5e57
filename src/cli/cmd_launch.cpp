// repro launch slurm SPEC [key=value ...] [options] [-- sbatch options]: freezes the runs
// of the spec's plan that are not finished into tasks.json and submits a SLURM job
// array whose tasks train them (run/slurm.h).

#include <iostream>
#include <regex>

#include "cli/cli.h"
#include "cli/common.h"
#include "cli/enum_option.h"
#include "data/registry.h"
#include "run/plan.h"
#include "run/runner.h"
#include "run/slurm.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace {

namespace fs = std::filesystem;

struct LaunchCommand {
  std::string spec_path, profile, out = "runs", data_root;
  DeviceChoice device = DeviceChoice::Auto;
  std::vector<std::string> arguments;       // overrides, then (after --) sbatch options
  std::vector<std::string> datasets, rows;  // --datasets / --rows
  LaunchOptions launch;
  std::string requeue_signal = "USR1";
  int max_restarts = 3;
  bool dry_run = false;
  std::vector<std::string> setup;  // --setup lines
  std::string setup_file;
  bool partition_given = false, time_given = false, account_given = false;
  std::string unused_positional;  // see add_launch_command
};

// The `repro run` arguments every task repeats besides --tasks and --index: where runs go and how they run, absolute.
// The spec, its overrides and the selection are frozen in tasks.json.
std::vector<std::string> task_run_arguments(const LaunchCommand& c) {
  std::vector<std::string> args{"--out", fs::absolute(c.out).lexically_normal().string()};
  if (!c.data_root.empty()) args.insert(args.end(), {"--data-root", fs::absolute(c.data_root).string()});
  if (c.device != DeviceChoice::Auto) args.insert(args.end(), {"--device", name_of(c.device)});
  if (c.max_restarts != 3) args.insert(args.end(), {"--max-restarts", std::to_string(c.max_restarts)});
  return args;
}

// Overrides come first; from the first argument that starts with '-' (only possible after --) the rest are
// sbatch options, an option word and its values per #SBATCH line ("--mem 4G").
// A spec override after the sbatch options (`-- --mem 4G train.epochs=3`) would become a word of an #SBATCH line and
// be lost: a word of the form section.key=value there is refused.
std::vector<std::string> split_arguments(LaunchCommand& c) {
  static const std::regex spec_override(R"(^[a-z_]+(\.[a-z_0-9]+)+=.*)");
  std::vector<std::string> overrides;
  for (const auto& argument : c.arguments) {
    if (argument.rfind('-', 0) == 0)
      c.launch.sbatch_options.push_back({argument});
    else if (c.launch.sbatch_options.empty())
      overrides.push_back(argument);
    else if (std::regex_match(argument, spec_override))
      throw Error("launch slurm: '" + argument + "' after -- " + join(c.launch.sbatch_options.back(), " ") +
                  " looks like a spec override (KEY=VALUE): overrides go before --, sbatch options after it (repro "
                  "launch slurm SPEC " +
                  argument + " -- --mem 4G)");
    else
      c.launch.sbatch_options.back().push_back(argument);
  }
  return overrides;
}

// Every value that the script or tasks.json will carry, checked before the spec is loaded: a refused value leaves
// nothing written (no plan.json, tasks.json or script) and names the option it came from.
void check_script_values(const LaunchCommand& c, const std::vector<std::string>& overrides) {
  check_one_line("spec path", fs::absolute(c.spec_path).lexically_normal().string());
  for (const auto& override_text : overrides) check_one_line("override", override_text);
  check_one_line("--profile", c.profile);
  for (const auto& dataset : c.datasets) check_one_line("--datasets", dataset);
  for (const auto& row : c.rows) check_one_line("--rows", row);
  check_output_folder(fs::absolute(c.out).lexically_normal().string());
  if (!c.data_root.empty()) check_one_line("--data-root", fs::absolute(c.data_root).string());
  check_one_line("the repro binary's path", c.launch.repro_binary);
  if (c.partition_given) check_partition(c.launch.partition);
  if (c.time_given) check_time_limit(c.launch.time);
  if (c.account_given) check_account(c.launch.account);
  check_sbatch_options(c.launch);
  for (const auto& line : c.setup) check_setup_line(line);
}

int launch_slurm(LaunchCommand& c) {
  const std::vector<std::string> overrides = split_arguments(c);
  c.launch.repro_binary = fs::canonical("/proc/self/exe").string();
  c.launch.requeue_signal = c.requeue_signal;
  check_script_values(c, overrides);
  if (!c.setup_file.empty()) c.launch.setup = read_setup_file(c.setup_file);
  c.launch.setup.insert(c.launch.setup.end(), c.setup.begin(), c.setup.end());
  c.launch.run_args = task_run_arguments(c);

  const Experiment experiment = load_spec(c.spec_path, overrides, c.profile, c.datasets, c.rows);
  c.launch.job_name = "repro-" + experiment.name;
  check_launch_options(c.launch);
  RunnerOptions where;  // what the prologue checks: the nodes' --out, data root and device, as this machine sees them
  where.out = c.out;
  where.data_root = c.data_root;
  where.device = c.device;
  const Plan plan = prepare_plan(experiment, where, PlanChecks::WarnForNodes);
  SlurmSubmission submission{c.launch, fs::absolute(c.out).lexically_normal(), experiment.folder(),
                             fs::absolute(c.spec_path).string(), c.dry_run};
  return slurm_executor(submission)->execute(plan);
}

}  // namespace

void add_launch_command(CLI::App& app, int& exit_code) {
  auto* launch = app.add_subcommand("launch", "Train a spec's grid on a cluster");
  launch->require_subcommand(1);
  auto* slurm = launch->add_subcommand(
      "slurm", "Freeze the runs not finished into tasks.json and submit a SLURM job array that trains them");
  auto c = std::make_shared<LaunchCommand>();
  slurm->add_option("spec", c->spec_path, "Experiment spec (YAML)")->required();
  slurm->add_option("arguments", c->arguments,
                    "Spec overrides KEY=VALUE; after --, extra sbatch options (written as #SBATCH lines)");
  // CLI11 2.1 hands what follows -- back to the parent command, which refuses it, once every positional has its
  // minimum ("spec x=1 -- --mem 4G" failed): this hidden one, never filled ("arguments" takes every word first),
  // keeps them here.
  slurm->add_option("after-dashes", c->unused_positional)->group("");
  slurm->add_option("--profile", c->profile, "A budget profile of the spec (e.g. smoke, short, paper)");
  add_selection_options(*slurm, c->datasets, c->rows);
  slurm->add_option("--out", c->out, "Folder of run records (default runs/; must be shared with the nodes)");
  slurm->add_option("--data-root", c->data_root, "Dataset folder as the nodes see it (default $REPRO_DATA there)");
  add_enum_option(*slurm, "--device", c->device);
  slurm->add_option("--partition", c->launch.partition, "SLURM partition(s), comma-separated");
  slurm->add_option("--time", c->launch.time,
                    "Time limit of each array task: minutes, minutes:seconds, hours:minutes:seconds, days-hours, "
                    "days-hours:minutes, days-hours:minutes:seconds or UNLIMITED");
  slurm->add_option("--account", c->launch.account, "SLURM account charged for the tasks");
  slurm
      ->add_option("--setup", c->setup,
                   "A shell line run before repro in each task, as written (e.g. 'module load cuda/12.4'); "
                   "repeatable, in order")
      ->allow_extra_args(false);  // one line per --setup: the next argument is an override again
  slurm->add_option("--setup-file", c->setup_file,
                    "A file of shell lines copied into the script before the --setup lines, run as written");
  hinted(slurm->add_option("--gpus-per-task", c->launch.gpus_per_task, "GPUs of each task (--gres=gpu:G)"),
         whole_number_at_least(0));
  hinted(slurm->add_option("--cpus-per-task", c->launch.cpus_per_task, "CPUs of each task"), whole_number_at_least(0));
  hinted(slurm->add_option("--runs-per-task", c->launch.runs_per_task, "Runs trained one after another by each task"),
         whole_number_at_least(1));
  hinted(
      slurm->add_option("--array-parallelism", c->launch.array_parallelism, "At most M tasks at once (--array=...%M)"),
      whole_number_at_least(0));
  hinted(slurm->add_option("--signal-lead", c->launch.signal_lead,
                           "Seconds before the time limit that the requeue signal arrives (default 300)"),
         whole_number_at_least(0));
  hinted(slurm->add_option("--requeue-signal", c->requeue_signal, "USR1 | USR2 (USR2 where NCCL owns USR1)"),
         CLI::IsMember({"USR1", "USR2"}));
  hinted(slurm->add_option("--max-restarts", c->max_restarts,
                           "No requeue once $SLURM_RESTART_COUNT reaches this (default 3)"),
         whole_number_at_least(0));
  slurm->add_flag("--dry-run", c->dry_run, "Write tasks.json and the script, print the script, submit nothing");
  slurm->allow_extras();  // keeps CLI11 from refusing the "--" before the sbatch options; anything else is refused
  slurm->callback([c, slurm, &exit_code] {
    c->partition_given = slurm->count("--partition") > 0;
    c->time_given = slurm->count("--time") > 0;
    c->account_given = slurm->count("--account") > 0;
    for (const auto& extra : slurm->remaining())
      if (extra != "--") throw Error("repro launch slurm: unknown option '" + extra + "' (sbatch options go after --)");
    exit_code = launch_slurm(*c);
  });
}

}  // namespace repro
