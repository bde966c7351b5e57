// repro status OUT | SPEC: where every planned run stands (complete, running with its
// lock holder, resumable, pending, failed, diverged), read from the run folders.
#include <iostream>

#include "cli/cli.h"
#include "cli/common.h"
#include "data/registry.h"
#include "report/records/run_filter.h"
#include "run/status.h"
#include "spec/experiment.h"
#include "util/error.h"

namespace repro {

namespace {

struct StatusCommand {
  std::string target, profile, out = "runs";
  std::vector<std::string> overrides, datasets, rows;
  std::string seeds;               // --seeds, as repro sweep takes it
  bool seeds_given = false;        // --seeds on the command line (an empty value is an error, as in sweep)
  std::vector<std::string> axes;   // --set KEY=V1,V2: the sweep's axes
  bool all = false;
};

// A spec's grid (with the sweep's --seeds and --set) under --out, and what its plan.json lists beyond it.
ExperimentStatus status_of_spec(const StatusCommand& c) {
  Experiment experiment = load_spec(c.target, c.overrides, c.profile, c.datasets, c.rows);
  apply_sweep_arguments(experiment, c.seeds_given ? std::optional<std::string>(c.seeds) : std::nullopt, c.axes);
  const std::vector<PlannedRun> runs = expand_grid(experiment, dataset_catalog());
  std::vector<std::string> dirs;
  for (const auto& run : runs) dirs.push_back(run.subdir());
  const std::filesystem::path folder = c.out / std::filesystem::path(experiment.folder());
  ExperimentStatus status = experiment_status(experiment.folder(), folder, runs);  // each record's settings checked
  const RunFilter rows_and_datasets{c.datasets, c.rows, {}};
  const int beyond =
      plan_runs_beyond(folder, dirs, [&](const RunId& run) { return rows_and_datasets.keeps(run); });
  if (beyond > 0)
    status.note = "and " + std::to_string(beyond) + " more run(s) of these rows in its plan.json (a sweep or other " +
                  "seeds: give that command's --set/--seeds, or `repro status " + c.out + "` for every run)";
  return status;
}

int show_status(const StatusCommand& c) {
  std::vector<ExperimentStatus> experiments;
  if (std::filesystem::is_regular_file(c.target)) {  // a spec: its plan under --out
    experiments.push_back(status_of_spec(c));
  } else {
    if (!c.axes.empty() || !c.overrides.empty() || !c.profile.empty())
      throw Error("status " + c.target + ": --set, --profile and overrides go with a spec (the plan.json files "
                  "under a folder say every run)");
    const RunFilter filter{c.datasets, c.rows,
                           c.seeds_given ? parse_seeds(c.seeds, "--seeds '" + c.seeds + "'") : std::vector<int64_t>{}};
    check_selects(runs_planned_under(c.target), filter);  // as report: a selector that selects nothing is refused
    experiments = status_of_out(c.target, [&](const RunId& run) { return filter.keeps(run); });
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
  auto* seeds = command->add_option("--seeds", c->seeds, "Only these seeds; with a spec, its seeds as repro sweep's "
                                                         "--seeds (e.g. 0-4)");
  command->add_option("--set", c->axes, "With a spec: a sweep axis KEY=V1,V2,... as given to repro sweep (repeatable)")
      ->allow_extra_args(false);
  command->add_option("--out", c->out, "With a spec: the folder of run records (default runs/)");
  command->add_flag("--all", c->all, "List complete runs too");
  command->callback([c, seeds, &exit_code] {
    c->seeds_given = seeds->count() > 0;
    exit_code = show_status(*c);
  });
}

}  // namespace repro
