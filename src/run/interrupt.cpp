#include "run/interrupt.h"

#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "util/error.h"

namespace repro {

namespace {

volatile std::sig_atomic_t g_signal = 0;  // the first handled signal since the handlers were installed

extern "C" void on_interrupt_signal(int signal) {
  if (g_signal != 0 && (signal == SIGTERM || signal == SIGINT)) {  // asked twice: stop now
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  if (g_signal == 0) g_signal = signal;
}

std::string lookup(const std::map<std::string, std::string>& environment, const std::string& key) {
  const auto it = environment.find(key);
  return it == environment.end() ? "" : it->second;
}

// Runs `scontrol requeue TARGET` and returns its exit status (127 when it cannot be started).
int run_scontrol_requeue(const std::string& target) {
  const pid_t child = ::fork();
  if (child < 0) return 127;
  if (child == 0) {
    ::execlp("scontrol", "scontrol", "requeue", target.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

int parse_requeue_signal(const std::string& name) {
  std::string bare = name.rfind("SIG", 0) == 0 ? name.substr(3) : name;
  if (bare == "USR1") return SIGUSR1;
  if (bare == "USR2") return SIGUSR2;
  throw Error("--requeue-signal '" + name + "': expected USR1 or USR2");
}

std::string signal_name(int signal) {
  switch (signal) {
    case SIGTERM:
      return "SIGTERM";
    case SIGINT:
      return "SIGINT";
    case SIGUSR1:
      return "SIGUSR1";
    case SIGUSR2:
      return "SIGUSR2";
    case SIGALRM:
      return "the time limit (--time-limit)";
    default:
      return "signal " + std::to_string(signal);
  }
}

InterruptHandlers::InterruptHandlers(int requeue_signal) : signals_{SIGTERM, SIGINT, requeue_signal, SIGALRM} {
  g_signal = 0;
  struct sigaction action {};
  action.sa_handler = on_interrupt_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // reads and writes go on; the trainer polls the flag
  for (int i = 0; i < kCount; ++i) ::sigaction(signals_[i], &action, &previous_[i]);
}

InterruptHandlers::~InterruptHandlers() {
  for (int i = 0; i < kCount; ++i) ::sigaction(signals_[i], &previous_[i], nullptr);
}

bool interrupt_requested() { return g_signal != 0; }
int interrupt_signal() { return g_signal; }

std::map<std::string, std::string> slurm_environment() {
  std::map<std::string, std::string> environment;
  for (const char* key : {"SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURM_RESTART_COUNT"})
    if (const char* value = std::getenv(key)) environment[key] = value;
  return environment;
}

RequeueDecision decide_requeue(int signal, int64_t steps_this_start, const InterruptPolicy& policy,
                               const std::map<std::string, std::string>& environment, int failed_runs_this_start) {
  RequeueDecision decision;
  const std::string job = lookup(environment, "SLURM_JOB_ID");
  if (job.empty() && signal != policy.requeue_signal) {  // Ctrl-C or kill on a workstation: no SLURM words
    decision.reason = signal_name(signal) + ": stopped with a checkpoint; the same command resumes where it stopped";
    return decision;
  }
  if (signal != policy.requeue_signal) {
    decision.reason = signal_name(signal) + ": checkpoint written, not requeued (only " +
                      signal_name(policy.requeue_signal) + " requeues); the next start resumes";
    return decision;
  }
  if (job.empty()) {
    decision.reason = signal_name(signal) +
                      " outside SLURM ($SLURM_JOB_ID unset): treated like SIGTERM, "
                      "checkpoint written, not requeued; the next start resumes";
    return decision;
  }
  const std::string restarts_text = lookup(environment, "SLURM_RESTART_COUNT");
  const long restarts = restarts_text.empty() ? 0 : std::strtol(restarts_text.c_str(), nullptr, 10);
  if (restarts >= policy.max_restarts) {
    decision.reason = "not requeued: $SLURM_RESTART_COUNT is " + std::to_string(restarts) + ", --max-restarts is " +
                      std::to_string(policy.max_restarts);
    return decision;
  }
  if (failed_runs_this_start > 0) {
    decision.reason = "not requeued: " + std::to_string(failed_runs_this_start) +
                      " run(s) failed in this process since it started (a crash is not requeued)";
    return decision;
  }
  if (steps_this_start <= 0) {
    decision.reason = "not requeued: no optimizer step was made since this start (a requeue would loop)";
    return decision;
  }
  const std::string array_job = lookup(environment, "SLURM_ARRAY_JOB_ID");
  const std::string task = lookup(environment, "SLURM_ARRAY_TASK_ID");
  decision.requeue = true;
  decision.target = !array_job.empty() && !task.empty() ? array_job + "_" + task : job;
  decision.reason = signal_name(signal) + " under SLURM: checkpoint written after " + std::to_string(steps_this_start) +
                    " step(s) this start, requeueing " + decision.target + " (restart " + std::to_string(restarts + 1) +
                    " of at most " + std::to_string(policy.max_restarts) + ")";
  return decision;
}

int finish_interrupted(int64_t steps_this_start, const InterruptPolicy& policy, int failed_runs_this_start) {
  const int signal = interrupt_signal();
  const RequeueDecision decision =
      decide_requeue(signal, steps_this_start, policy, slurm_environment(), failed_runs_this_start);
  const int stopped_code = 128 + signal;
  if (!decision.requeue) {
    spdlog::warn("{}; exit code {}", decision.reason, stopped_code);
    return stopped_code;
  }
  spdlog::info("{}", decision.reason);
  const int status = run_scontrol_requeue(decision.target);
  if (status != 0) {
    spdlog::error("scontrol requeue {} failed (exit status {}): not requeued; the next start resumes", decision.target,
                  status);
    return stopped_code;
  }
  return 0;
}

}  // namespace repro
