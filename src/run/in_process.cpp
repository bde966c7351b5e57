#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <algorithm>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "data/registry.h"
#include "run/device.h"
#include "run/executor.h"
#include "run/lock.h"
#include "run/plan.h"
#include "run/train_run.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

namespace {

// What became of the runs of a plan, for the closing log lines and the exit code.
struct Tally {
  int finished_before = 0;     // skipped: complete or diverged when the plan was checked
  int finished_elsewhere = 0;  // skipped: another process finished it while this one worked
  int failed = 0;
  int not_started = 0;            // --time-limit: expected to take longer than the time left
  std::vector<std::string> held;  // skipped: "folder (held by host:pid)"
};

// Claims a run by its folder's lock and re-checks the folder under it (another process may have finished the
// run, or written a run of another spec there, since the plan was checked). nullopt: skip the run.
std::optional<RunLock> claim(const RunAt& at, const std::filesystem::path& out, Tally& tally, std::mutex& mutex) {
  std::optional<RunLock> lock = RunLock::try_acquire(at.folder.dir());
  const std::string folder = at.folder.dir().string();
  if (!lock) {
    const auto holder = RunLock::holder(at.folder.dir());
    const std::string who = holder ? holder->describe() : "another process";
    spdlog::info("run {}: {} is held by {}: skipped here (it is being trained there)", at.position + 1, folder, who);
    std::lock_guard<std::mutex> guard(mutex);
    tally.held.push_back(folder + " (held by " + who + ")");
    return std::nullopt;
  }
  try {
    if (!is_finished(check_plan({at.run}, out)[0])) return lock;
    spdlog::info("run {}: {} was finished by another process meanwhile: skipped", at.position + 1, folder);
    std::lock_guard<std::mutex> guard(mutex);
    ++tally.finished_elsewhere;
  } catch (const Error& e) {  // its folder now holds a run of another spec: leave it untouched
    spdlog::error("run {}: {}", at.position + 1, e.what());
    std::lock_guard<std::mutex> guard(mutex);
    ++tally.failed;
  }
  return std::nullopt;
}

void log_tally(const Tally& tally, size_t total) {
  if (tally.finished_before > 0)
    spdlog::info("{} of {} runs were already finished and were skipped", tally.finished_before, total);
  if (tally.finished_elsewhere > 0)
    spdlog::info("{} of {} runs were finished by another process meanwhile", tally.finished_elsewhere, total);
  if (!tally.held.empty())
    spdlog::warn("{} of {} runs are being trained by other processes and are not in this table yet: {}",
                 tally.held.size(), total, join(tally.held, "; "));
  if (tally.failed > 0) spdlog::error("{} of {} runs failed (see their summary.json and log.txt)", tally.failed, total);
  if (tally.not_started > 0) spdlog::warn("{}", not_started_summary(tally.not_started, total));
}

// The plan's runs not finished, in this process: `lanes` lanes (threads; one lane runs on the calling thread) each
// take the next run of the plan in its order, claim it by its lock, re-check it under the lock and train it
// (run/train_run.h). A run that fails or diverges leaves the others going; a signal, the time limit or an error
// that would fail every run (a WriteError) makes every lane checkpoint its run and stop.
class InProcessExecutor : public Executor {
 public:
  explicit InProcessExecutor(const RunnerOptions& options) : options_(options) {}

  int execute(const Plan& plan) override {
    const std::vector<size_t> to_train = plan.to_train();
    const int lanes = std::max(1, std::min(options_.parallel.lanes, static_cast<int>(to_train.size())));
    const torch::Device device = resolve_device(options_.device);
    CommandState command(options_, device, resolve_data_root(options_.data_root), lanes);
    Shared shared{plan, to_train, StartRule(options_.time_limit, plan.runs, options_.out), LanePace(lanes, to_train.size())};
    shared.tally.finished_before = plan.finished();
    const InterruptHandlers handlers(options_.interrupt.requeue_signal);  // checkpoint on TERM/INT/USR1 (USR2)/ALRM
    const TimeLimit::Alarm alarm(options_.time_limit);                    // ALRM at --time-limit
    if (lanes == 1) {
      lane(0, 1, command, shared);
    } else {
      const int per_lane = options_.parallel.threads_per_job;
      spdlog::info("{} lanes in this process, {} LibTorch thread{} each, on {}", lanes, per_lane,
                   per_lane == 1 ? "" : "s", device.str());
      std::vector<std::thread> threads;
      for (int k = 0; k < lanes; ++k) threads.emplace_back([&, k] { lane(k, lanes, command, shared); });
      for (auto& thread : threads) thread.join();
    }
    if (shared.fatal) std::rethrow_exception(shared.fatal);  // a WriteError: every lane checkpointed and stopped
    if (interrupt_requested()) return finish_interrupted(command.steps_made, options_.interrupt, shared.tally.failed);
    if (shared.observer_stopped) return kRunStopped;  // a run's RunObserver stopped it (tests)
    log_tally(shared.tally, plan.positions.size());
    if (shared.tally.failed > 0) return 1;
    return shared.tally.not_started > 0 ? kRunStopped : 0;
  }

 private:
  // What the lanes share: the plan's runs in order, the start rule and the tally, under one mutex.
  struct Shared {
    const Plan& plan;
    const std::vector<size_t>& to_train;
    StartRule start_rule;
    LanePace pace;  // the command's one ETA, whichever lane prints it
    Tally tally;
    std::mutex mutex;
    size_t next = 0;                // into to_train
    std::exception_ptr fatal;       // the first error that stops the command
    bool observer_stopped = false;  // a RunObserver stopped a run (no signal)

    std::optional<size_t> take() {
      std::lock_guard<std::mutex> lock(mutex);
      if (next >= to_train.size()) return std::nullopt;
      pace.take();
      return to_train[next++];
    }
  };

  // One lane: runs of the plan, one after another, until none is left or the command stops.
  void lane(int index, int lanes, CommandState& command, Shared& shared) {
    if (lanes > 1) at::set_num_threads(std::max(1, options_.parallel.threads_per_job));
    const auto runs_here =
        static_cast<int64_t>((shared.to_train.size() + static_cast<size_t>(lanes) - 1 - static_cast<size_t>(index)) /
                             static_cast<size_t>(lanes));
    Progress progress(static_cast<int64_t>(shared.plan.runs.size()), runs_here,
                      options_.live_progress && lanes == 1,  // lanes: a log line a run every 30 s
                      lanes > 1 ? &shared.pace : nullptr, index);
    try {
      while (!command.stop && !interrupt_requested()) {
        const std::optional<size_t> i = shared.take();
        if (!i) break;
        const PlannedRun& run = shared.plan.runs[*i];
        const RunAt at{run, run.position, RunFolder(options_.out / run.dir()),
                       lanes > 1 ? "run " + std::to_string(run.position + 1) : ""};
        if (!train_next(at, command, shared, progress)) break;
      }
    } catch (...) {  // a WriteError (train_next rethrows it) or an error outside any run
      std::lock_guard<std::mutex> lock(shared.mutex);
      if (!shared.fatal) shared.fatal = std::current_exception();
      command.stop = true;
    }
  }

  // The run `at`, if it may start and this lane claims it; false when the lane must stop.
  bool train_next(const RunAt& at, CommandState& command, Shared& shared, Progress& progress) {
    {
      std::lock_guard<std::mutex> lock(shared.mutex);
      if (const auto why = shared.start_rule.refusal(at.run, at.folder)) {
        spdlog::warn("run {}: {}", at.position + 1, *why);
        ++shared.tally.not_started;
        return true;
      }
    }
    const std::optional<RunLock> lock = claim(at, options_.out, shared.tally, shared.mutex);
    if (!lock) return true;
    RunState status = RunState::Failed;
    try {
      status = train_run(at, command, progress);
    } catch (const WriteError&) {
      throw;  // it would fail every later run the same way: the command stops
    } catch (const std::exception& e) {
      record_failure(at, command, e);  // the other runs go on; the command exits 1 at the end
    }
    progress.end_run();
    std::lock_guard<std::mutex> guard(shared.mutex);
    if (status == RunState::Interrupted) {
      if (!interrupt_requested() && !command.stop) {  // by its RunObserver: the other lanes stop too
        shared.observer_stopped = true;
        command.stop = true;
      }
      return false;
    }
    if (status == RunState::Failed) ++shared.tally.failed;
    if (status == RunState::Complete && options_.time_limit.active()) count_completed(shared.start_rule, at.folder);
    return true;
  }

  // A run that just completed tells --time-limit how long such runs take.
  static void count_completed(StartRule& rule, const RunFolder& folder) {
    try {
      if (const auto record = read_run_record_if_any(folder.summary_path())) rule.completed(*record);
    } catch (const std::exception&) {  // its record is checked where it is read for the table
    }
  }

  const RunnerOptions& options_;
};

}  // namespace

std::unique_ptr<Executor> in_process_executor(const RunnerOptions& options) {
  return std::make_unique<InProcessExecutor>(options);
}

}  // namespace repro
