#pragma once
// How a run ended: one type from the trainer (TrainOutcome) through the run
// records (summary.json's "status", written by its name) to `repro status`, the
// runner's tally and the report. Names in one table, like the spec's enums.
#include "spec/options.h"

namespace repro {

enum class RunStatus {
  Complete,     // every epoch trained and evaluated
  Diverged,     // a NaN/Inf loss ended it (a final record: not retried)
  Failed,       // it threw (data, model, a bug); recorded by the runner, retried by the next command
  Interrupted,  // a signal (or its RunObserver): checkpoint written (never in a summary.json)
};
const EnumNames<RunStatus>& enum_names(RunStatus);

// A summary.json with this status is final: a rerun skips the run, eval may read it.
inline bool is_finished(RunStatus status) { return status == RunStatus::Complete || status == RunStatus::Diverged; }

}  // namespace repro
