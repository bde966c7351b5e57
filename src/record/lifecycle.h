#pragma once
// A run's lifecycle: every state a planned run can be in, from planned to finished, and the states a reader
// can find its record in. One enum and one name table for summary.json's "status", the runner's plan check and
// tally, `repro status` and the report's cells.
#include "util/enum_names.h"

namespace repro {

enum class RunState {
  Pending,       // planned; its folder holds no checkpoint and no summary.json yet
  Running,       // its folder's lock is held by a live process
  Resumable,     // a checkpoint and no summary.json: the next command resumes it
  Interrupted,   // the trainer stopped (a signal, or its RunObserver) after writing a checkpoint (never in a summary.json)
  Complete,      // every epoch trained and evaluated
  Diverged,      // a NaN/Inf loss ended it (final: not retried)
  Failed,        // it threw (data, model, a bug); recorded by the runner, retried by the next command
  Corrupt,       // a record file cannot be read or lacks a field (the reader's message names the file and field)
  Inconsistent,  // its files disagree with each other or with the plan
  Link,          // its folder is (below) a symbolic link: another folder's record, never counted
};
const EnumNames<RunState>& enum_names(RunState);

// The states summary.json may record: the run ended (Failed: with an error the next command retries).
inline bool is_recorded_state(RunState state) {
  return state == RunState::Complete || state == RunState::Diverged || state == RunState::Failed;
}
// A summary.json with this state is final: a rerun skips the run, eval may read it.
inline bool is_finished(RunState state) { return state == RunState::Complete || state == RunState::Diverged; }
// A record that cannot be trusted: listed with its problem, never counted.
inline bool is_bad_record(RunState state) {
  return state == RunState::Corrupt || state == RunState::Inconsistent || state == RunState::Link;
}

}  // namespace repro
