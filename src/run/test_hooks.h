#pragma once
// Faults that tests ask a run for, through the hidden options --stop-after-epoch,
// --kill-at-step, --interrupt-at-step and --kill-run: kept out of RunnerOptions and
// ParallelOptions (a user's command never sets them) and passed beside them.
#include <cstdint>

namespace repro {

struct TestHooks {
  int64_t stop_after_epoch = 0;   // stop each run after this epoch, as if interrupted (exit 3, kRunStopped)
  int64_t kill_at_step = 0;       // SIGKILL the process at this optimizer step (die mid-epoch)
  int64_t interrupt_at_step = 0;  // raise the requeue signal at this optimizer step (as if SLURM signalled)
  int64_t kill_run = -1;          // with --jobs: kill_at_step only in the child of this plan position
};

}  // namespace repro
