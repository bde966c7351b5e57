// repro status OUT | SPEC: where every planned run stands (complete, running with its
// lock holder, resumable, pending, failed, diverged), read from the run folders.
#include <iostream>

#include "cli/cli.h"
#include "cli/common.h"
#include "data/registry.h"
#include "run/status.h"

namespace repro {

namespace {

struct StatusCommand {
  std::string target, profile, out = "runs";
  std::vector<std::string> overrides, datasets, rows;
  bool all = false;
};

int show_status(const StatusCommand& c) {
  std::vector<ExperimentStatus> experiments;
  if (std::filesystem::is_regular_file(c.target)) {  // a spec: its plan under --out
    const Experiment experiment = load_spec(c.target, c.overrides, c.profile, c.datasets, c.rows);
    std::vector<std::string> dirs;
    for (const auto& run : expand_grid(experiment, dataset_catalog())) dirs.push_back(run.subdir());
    experiments.push_back(
        experiment_status(experiment.folder(), c.out / std::filesystem::path(experiment.folder()), dirs));
  } else {
    experiments = status_of_out(c.target);
  }
  std::cout << render_status(experiments, c.all);
  return 0;
}

}  // namespace

void add_status_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "status",
      "Runs complete / running (lock holder) / pending (resumable) / failed / diverged, from the run folders");
  auto c = std::make_shared<StatusCommand>();
  command->add_option("target", c->target, "A --out folder of runs, or a spec (its runs under --out)")->required();
  command->add_option("overrides", c->overrides, "With a spec: overrides KEY=VALUE as given to repro run");
  command->add_option("--profile", c->profile, "With a spec: its profile");
  add_selection_options(*command, c->datasets, c->rows);
  command->add_option("--out", c->out, "With a spec: the folder of run records (default runs/)");
  command->add_flag("--all", c->all, "List complete runs too");
  command->callback([c, &exit_code] { exit_code = show_status(*c); });
}

}  // namespace repro
