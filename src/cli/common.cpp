#include "cli/common.h"

#include <torch/torch.h>
#include <unistd.h>

#include <iostream>

#include "report/table.h"
#include "util/error.h"
#include "util/files.h"
#include "util/version.h"

namespace repro {

void add_run_arguments(CLI::App& command, RunArguments& args) {
  command.add_option("spec", args.spec_path, "Experiment spec (YAML)")->required();
  command.add_option("overrides", args.overrides, "Spec overrides KEY=VALUE, e.g. train.epochs=5");
  command.add_option("--out", args.out, "Folder of run records (default runs/)");
  command.add_option("--profile", args.profile, "A budget profile of the spec (e.g. smoke, short, paper)");
  command.add_option("--data-root", args.data_root, "Dataset folder (default $REPRO_DATA, else ./datasets)");
  command.add_option("--device", args.device, "auto | cpu | cuda")->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  command.add_option("--threads", args.threads, "CPU threads for LibTorch (default: all cores)")
      ->check(CLI::NonNegativeNumber);
  command.add_flag("--dry-run", args.dry_run, "List the runs with their resolved settings and parameter counts");
  command.add_option("--stop-after-epoch", args.stop_after_epoch, "Stop each run after this epoch (testing resume)")
      ->group("");
  command.add_option("--kill-at-step", args.kill_at_step, "SIGKILL repro after this optimizer step (testing resume)")
      ->group("");
}

Experiment load_spec(const std::string& path, const std::vector<std::string>& overrides, const std::string& profile) {
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
  return experiment;
}

Experiment load_with_overrides(const RunArguments& args) {
  return load_spec(args.spec_path, args.overrides, args.profile);
}

void apply_sweep_arguments(Experiment& experiment, const std::optional<std::string>& seeds,
                           const std::vector<std::string>& axes) {
  if (seeds) {
    experiment.seeds_where = "--seeds '" + *seeds + "'";
    experiment.seeds = parse_seeds(*seeds, experiment.seeds_where);
  }
  for (const auto& axis : axes) experiment.axes.push_back(parse_axis(axis));
}

RunnerOptions runner_options(const RunArguments& args) {
  configure_threads(args.threads);
  RunnerOptions options;
  options.out = args.out;
  options.data_root = args.data_root;
  options.device = args.device;
  options.dry_run = args.dry_run;
  options.live_progress = ::isatty(STDOUT_FILENO);
  options.stop_after_epoch = args.stop_after_epoch;
  options.kill_at_step = args.kill_at_step;
  return options;
}

int run_and_tabulate(const Experiment& experiment, const RunnerOptions& options) {
  const int exit_code = run_experiment(experiment, options);
  if (options.dry_run || exit_code == kRunStopped) return exit_code;
  const std::filesystem::path experiment_dir = options.out / experiment.folder();
  const std::string table = render_report(experiment_dir, ReportOptions{});
  write_file_atomic(experiment_dir / "table.md", table);
  std::cout << table;
  return exit_code;
}

}  // namespace repro
