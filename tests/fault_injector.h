#pragma once
// Faults a test asks a run for, kept out of repro: set in-process on a FaultInjector (RunnerOptions::observer), or
// by the hidden options --stop-after-epoch, --kill-at-step, --interrupt-at-step, --kill-run and --step-delay-ms of the repro-faults
// binary (tests/faults_main.cpp: repro's command line with these options added to run and sweep; its --jobs
// children are repro-faults again, given the same options).
#include <csignal>
#include <cstdint>
#include <string>
#include <vector>

#include "cli/common.h"
#include "train/observer.h"

namespace repro::test {

class FaultInjector : public RunObserver, public RunExtension {
 public:
  int64_t stop_epoch = 0;        // stop each run after this epoch, as if interrupted (exit 3, kRunStopped)
  int64_t kill_step = 0;         // SIGKILL the process at this optimizer step (die mid-epoch)
  int64_t interrupt_step = 0;    // raise the requeue signal at this optimizer step (as if SLURM signalled)
  int64_t kill_position = -1;    // kill_step only in the run at this plan position (with --jobs: in its child)
  int64_t step_delay_ms = 0;     // sleep this long after every optimizer step (a slow run, for --time-limit)
  int requeue_signal = SIGUSR1;  // the command's (--requeue-signal)

  // RunObserver
  void after_step(int64_t position, int64_t step) const override;
  bool stop_after_epoch(int64_t epoch) const override;
  // RunExtension
  void add_options(CLI::App& command) override;
  std::vector<std::string> child_arguments() const override;
  const RunObserver* observer(const RunnerOptions& options) override;
};

FaultInjector stop_after(int64_t epoch);   // stops each run after `epoch`
FaultInjector interrupt_at(int64_t step);  // raises SIGUSR1 at optimizer step `step`

}  // namespace repro::test
