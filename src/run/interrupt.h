#pragma once
// Interruption of training by a signal. SIGTERM, SIGINT and the requeue signal
// (SIGUSR1 or SIGUSR2, --requeue-signal) only set an async-signal-safe flag; the
// trainer reads it after every optimizer step (TrainHooks::interrupt_requested),
// finishes that step, writes a mid-epoch checkpoint and returns "interrupted".
// Then finish_interrupted() decides what the process does:
//   - requeue signal under SLURM ($SLURM_JOB_ID set), $SLURM_RESTART_COUNT below
//     --max-restarts, at least one optimizer step made and no run failed since this start:
//     `scontrol requeue <array job>_<task>` (or <job>) and exit 0;
//   - otherwise (SIGTERM, SIGINT, SIGALRM of --time-limit, the requeue signal outside SLURM or
//     past the guards): exit 128 + the signal's number (143 TERM, 130 INT, 142 ALRM, 138 USR1,
//     140 USR2);
//     the next start resumes from the checkpoint.
// A second SIGTERM/SIGINT while the first is being handled ends the process at once.
#include <csignal>
#include <cstdint>
#include <map>
#include <string>

namespace repro {

struct InterruptPolicy {
  int requeue_signal = SIGUSR1;
  int max_restarts = 3;  // no requeue once $SLURM_RESTART_COUNT reaches this
};

// "USR1" | "USR2" (also "SIGUSR1", "SIGUSR2") -> the signal; throws repro::Error naming the value otherwise.
int parse_requeue_signal(const std::string& name);
std::string signal_name(int signal);  // SIGUSR1 -> "SIGUSR1"

// While alive: handlers for SIGTERM, SIGINT, the requeue signal and SIGALRM (--time-limit: run/time_limit.h) that set the flag
// (cleared when installed). The previous handlers are restored on destruction.
class InterruptHandlers {
 public:
  explicit InterruptHandlers(int requeue_signal);
  ~InterruptHandlers();
  InterruptHandlers(const InterruptHandlers&) = delete;
  InterruptHandlers& operator=(const InterruptHandlers&) = delete;

 private:
  static constexpr int kCount = 4;
  int signals_[kCount];
  struct sigaction previous_[kCount];
};

bool interrupt_requested();  // a handled signal has arrived
int interrupt_signal();      // the first one that arrived (0: none)

// What the process does after a run stopped on a signal: logs it, requeues when the
// policy allows (see above) and returns the exit code. `environment` holds the SLURM
// variables (SLURM_JOB_ID, SLURM_ARRAY_JOB_ID, SLURM_ARRAY_TASK_ID, SLURM_RESTART_COUNT);
// `requeue` runs the scontrol command line and returns its exit status.
struct RequeueDecision {
  bool requeue = false;
  std::string target;  // "<array job>_<task>" or "<job>"
  std::string reason;  // one line for the log: why (not)
};
// `failed_runs_this_start`: runs of this process recorded `failed` (a crash is never requeued).
RequeueDecision decide_requeue(int signal, int64_t steps_this_start, const InterruptPolicy& policy,
                               const std::map<std::string, std::string>& environment, int failed_runs_this_start = 0);
std::map<std::string, std::string> slurm_environment();  // the four variables above, where set
int finish_interrupted(int64_t steps_this_start, const InterruptPolicy& policy, int failed_runs_this_start = 0);

}  // namespace repro
