#pragma once
// A command's runs, from its plan to its executor. Every command that trains a spec's grid (`repro run` / `sweep`,
// `repro launch slurm`) begins with the one prologue, prepare_plan: the grid planned once (run/plan.h), what it
// would do that a user may not expect said, the memory, the run folders and the data checked, plan.json written and
// a finished run's damaged event file written anew; then an executor (run/executor.h) trains the runs not finished:
// in this process (K lanes), in child processes (--jobs) or as a SLURM job array. A task of a frozen plan (`--tasks
// FILE --index I`: a --jobs child, a SLURM array task) trains in this process. The table is the report layer's
// (cli: run_and_tabulate).
#include "run/executor.h"
#include "spec/experiment.h"

namespace repro {

// What the prologue does with what would stop a run on this machine (its memory, its data folder): refuse the plan
// (run, sweep), or warn (launch slurm: the nodes' memory and data folder are not this machine's; each task checks
// its own before it trains). A run folder of another spec is refused either way.
enum class PlanChecks { Refuse, WarnForNodes };

// The prologue: plans `experiment` (only_index: --index's run), checks it, writes plan.json; throws repro::Error
// before anything is written where a check refuses.
Plan prepare_plan(const Experiment& experiment, const RunnerOptions& options, PlanChecks checks);

// Returns the process exit code (run/executor.h).
int run_experiment(const Experiment& experiment, const RunnerOptions& options);
// Task `index` of the frozen plan `tasks_file` (a --jobs child, a SLURM array task), in this process.
int run_task(const std::filesystem::path& tasks_file, int64_t index, const RunnerOptions& options);

}  // namespace repro
