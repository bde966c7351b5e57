#pragma once
// A command's runs, from its plan to its executor: `repro run` / `sweep` plan the spec's grid once (run/plan.h),
// write plan.json and hand the runs not finished to an executor (run/executor.h); a task of a frozen plan
// (`--tasks FILE --index I`) trains in this process. The table is the report layer's (cli: run_and_tabulate).
#include "run/executor.h"
#include "spec/experiment.h"

namespace repro {

// Returns the process exit code (run/executor.h).
int run_experiment(const Experiment& experiment, const RunnerOptions& options);
// Task `index` of the frozen plan `tasks_file` (a --jobs child, a SLURM array task), in this process.
int run_task(const std::filesystem::path& tasks_file, int64_t index, const RunnerOptions& options);

}  // namespace repro
