#include "run/parallel.h"

#include <poll.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <deque>
#include <list>
#include <map>
#include <set>

#include "record/folder.h"
#include "record/run_record.h"
#include "record/task_plan.h"
#include "run/children.h"
#include "run/executor.h"
#include "run/grid_progress.h"
#include "run/lock.h"
#include "run/threads.h"
#include "run/time_limit.h"
#include "spec/options.h"
#include "train/progress.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"
#include "util/version.h"

namespace repro {

namespace {

// A child's log line "[12:00:00] [warning] text" -> {"warning", "text"}; other lines -> {"", line}.
std::pair<std::string, std::string> split_log_line(const std::string& line) {
  if (line.size() < 4 || line[0] != '[') return {"", line};
  const auto time_end = line.find("] [");
  if (time_end == std::string::npos) return {"", line};
  const auto level_end = line.find("] ", time_end + 3);
  if (level_end == std::string::npos) return {"", line};
  return {line.substr(time_end + 3, level_end - time_end - 3), line.substr(level_end + 2)};
}

// The last "repro: error: ..." line of a child's output, without the prefix.
std::string error_message(const std::vector<std::string>& tail) {
  const std::string prefix = "repro: error: ";
  for (auto it = tail.rbegin(); it != tail.rend(); ++it)
    if (starts_with(*it, prefix)) return it->substr(prefix.size());
  return tail.empty() ? "no message" : tail.back();
}

struct Active {
  ChildProcess child;
  size_t position;
  RunFolder folder;
  std::optional<int> device;
  ActiveRunProgress progress;
  std::vector<std::string> tail;  // the child's last output lines
};

class Scheduler {
 public:
  Scheduler(const std::vector<PlannedRun>& runs, const std::vector<size_t>& positions, std::filesystem::path tasks_file,
            std::filesystem::path out, const ParallelOptions& options, const TimeLimit& limit)
      : runs_(runs),
        waiting_(positions.begin(), positions.end()),
        tasks_file_(std::move(tasks_file)),
        out_(std::move(out)),
        options_(options),
        slots_(options.devices, options.runs_per_device),
        display_(runs.size(), positions.size(), std::max(1, options.jobs), options.live_progress),
        limit_(limit),
        start_rule_(limit, runs, out_) {
    for (size_t k = 0; k < positions.size(); ++k) task_of_[positions[k]] = static_cast<int64_t>(k);
  }

  int run() {
    const InterruptHandlers handlers(options_.interrupt.requeue_signal);
    const TimeLimit::Alarm alarm(limit_);  // SIGALRM at the limit: stopped below as on SIGTERM
    while (!waiting_.empty() || !active_.empty()) {
      if (interrupt_requested() && forwarded_ == 0) forward_stop();
      if (forwarded_ == 0 && !fatal_) launch_what_fits();
      if (active_.empty()) break;
      wait_for_output();
      reap();
      display_.show(snapshot());
    }
    display_.finish();
    log_tally();
    if (fatal_) throw Error(*fatal_);
    if (forwarded_ != 0) return finish_interrupted(launched_ > 0 ? 1 : 0, options_.interrupt);
    if (stopped_ > 0) return kRunStopped;
    if (failed_ > 0) return 1;
    return not_started_ > 0 ? kRunStopped : 0;
  }

 private:
  std::string label(size_t position) const {
    const PlannedRun& run = runs_[position];
    return "run " + std::to_string(position + 1) + "/" + std::to_string(runs_.size()) + " (" + run.model_config +
           " on " + run.dataset + ", seed " + std::to_string(run.seed) + ")";
  }

  void launch_what_fits() {
    while (!waiting_.empty() && static_cast<int>(active_.size()) < options_.jobs) {
      std::optional<int> device;
      if (!options_.devices.empty()) {
        device = slots_.acquire();
        if (!device) return;
      }
      const size_t position = waiting_.front();
      waiting_.pop_front();
      const RunFolder folder(out_ / runs_[position].dir());
      if (const auto holder = RunLock::holder(folder.dir())) {  // the child would skip it too
        display_.log(spdlog::level::info, label(position) + ": " + folder.dir().string() + " is held by " +
                                              holder->describe() + ": skipped here");
        held_.push_back(folder.dir().string() + " (held by " + holder->describe() + ")");
        display_.run_ended(0, /*trained=*/false);
        if (device) slots_.release(*device);
        continue;
      }
      if (const auto why = start_rule_.refusal(runs_[position], folder)) {
        display_.log(spdlog::level::warn, label(position) + ": " + *why);
        ++not_started_;
        display_.run_ended(0, /*trained=*/false);
        if (device) slots_.release(*device);
        continue;
      }
      launch(position, folder, device);
    }
  }

  void launch(size_t position, const RunFolder& folder, std::optional<int> device) {
    std::vector<std::string> arguments = options_.child_arguments;
    for (const std::string& extra :
         {std::string("--tasks"), tasks_file_.string(), std::string("--index"), std::to_string(task_of_.at(position)),
          std::string("--threads"), std::to_string(options_.threads_per_job)})
      arguments.push_back(extra);
    std::vector<std::string> environment = options_.extra_environment;
    if (device)
      environment.push_back("CUDA_VISIBLE_DEVICES=" +
                            child_visible_device(std::getenv("CUDA_VISIBLE_DEVICES"), *device));
    ChildProcess child = ChildProcess::spawn(options_.executable, arguments, environment);
    const int64_t epochs = runs_[position].options.train.epochs;
    display_.log(spdlog::level::info, label(position) + " started (pid " + std::to_string(child.pid()) +
                                          (device ? ", GPU " + std::to_string(*device) : std::string()) + ")");
    ActiveRunProgress progress{label(position), epochs, epochs_recorded(folder), epochs_recorded(folder),
                               ActiveRunProgress::Clock::now()};
    active_.push_back(Active{std::move(child), position, folder, device, progress, {}});
    ++launched_;
  }

  void wait_for_output() {
    std::vector<pollfd> fds;
    for (const auto& a : active_) fds.push_back({a.child.output_fd(), POLLIN, 0});
    ::poll(fds.data(), fds.size(), 250);  // EINTR (a stop signal) just ends the wait early
    for (auto& a : active_) take_lines(a, a.child.read_lines());
  }

  void take_lines(Active& a, const std::vector<std::string>& lines) {
    for (const auto& line : lines) {
      a.tail.push_back(line);
      if (a.tail.size() > 20) a.tail.erase(a.tail.begin());
      const auto [level, text] = split_log_line(line);
      // A warning every child repeats (a data note of the dataset they share) is shown once per command.
      if (level == "warning" && warned_.insert(text).second)
        display_.log(spdlog::level::warn, label(a.position) + ": " + text);
      if (level == "error" || level == "critical") display_.log(spdlog::level::err, label(a.position) + ": " + text);
    }
  }

  void reap() {
    for (auto it = active_.begin(); it != active_.end();) {
      const std::optional<ChildExit> exit = it->child.poll_exit();
      if (!exit) {
        it->progress.epochs_done = epochs_recorded(it->folder);
        ++it;
        continue;
      }
      take_lines(*it, it->child.read_lines());
      if (it->device) slots_.release(*it->device);
      record_exit(*it, *exit);
      it = active_.erase(it);
    }
  }

  void record_exit(const Active& a, const ChildExit& exit) {
    const double seconds = a.progress.seconds();
    const std::string took = " in " + format_duration(seconds);
    std::optional<RunRecord> summary;
    std::optional<RunState> status;
    try {
      summary = read_run_record_if_any(a.folder.summary_path());
      if (summary) status = summary->status;
    } catch (const Error& e) {  // a damaged summary.json: counted as failed below, with the child's own message
      display_.log(spdlog::level::err, label(a.position) + ": " + e.what());
    }
    const bool trained = !exit.signaled && exit.code == 0 && status && is_finished(*status);
    const int64_t epochs_here = epochs_recorded(a.folder) - a.progress.epochs_at_start;
    display_.run_ended(seconds, trained, a.progress.epochs_at_start, epochs_here);
    if (trained && status == RunState::Complete) start_rule_.completed(*summary);
    if (trained) {
      display_.log(
          status == RunState::Complete ? spdlog::level::info : spdlog::level::warn,
          label(a.position) + " " + name_of(*status) + took + ", " + display_.remaining_text(snapshot_without(a)));
    } else if (!exit.signaled && exit.code == 0) {
      display_.log(spdlog::level::info, label(a.position) + ": held or finished by another process: skipped here");
      held_.push_back(a.folder.dir().string());
    } else if (forwarded_ != 0 || (!exit.signaled && exit.code == kRunStopped)) {
      ++stopped_;
      display_.log(spdlog::level::warn, label(a.position) + " stopped" + took + " (" + exit.describe() +
                                            "); run the command again to resume it");
    } else if (!exit.signaled && exit.code == 2) {
      fatal_ = label(a.position) + ": " + error_message(a.tail);
      display_.log(spdlog::level::err, *fatal_ + " (no further run starts)");
    } else {
      ++failed_;
      const std::string reason = exit.signaled ? exit.describe() + "; its last checkpoint stays, run again to resume"
                                 : status == RunState::Failed ? summary->message
                                                              : exit.describe() + ": " + error_message(a.tail);
      display_.log(spdlog::level::err, label(a.position) + " failed" + took + ": " + reason);
    }
  }

  // Only the parent may requeue a SLURM task: the children get SIGTERM for the requeue signal (and the time limit).
  void forward_stop() {
    const int signal = interrupt_signal();
    forwarded_ = signal == options_.interrupt.requeue_signal || signal == SIGALRM ? SIGTERM : signal;
    display_.log(spdlog::level::warn, signal_name(signal) + ": " + signal_name(forwarded_) + " passed to " +
                                          std::to_string(active_.size()) + " running run(s); no new run starts");
    for (const auto& a : active_) a.child.send_signal(forwarded_);
  }

  std::vector<ActiveRunProgress> snapshot() const {
    std::vector<ActiveRunProgress> result;
    for (const auto& a : active_) result.push_back(a.progress);
    return result;
  }
  std::vector<ActiveRunProgress> snapshot_without(const Active& gone) const {
    std::vector<ActiveRunProgress> result;
    for (const auto& a : active_)
      if (&a != &gone) result.push_back(a.progress);
    return result;
  }

  void log_tally() const {
    if (!held_.empty())
      spdlog::warn("{} of {} runs are being trained by other processes and are not in this table yet: {}", held_.size(),
                   runs_.size(), join(held_, "; "));
    if (failed_ > 0) spdlog::error("{} of {} runs failed (see their log.txt)", failed_, runs_.size());
    if (not_started_ > 0) spdlog::warn("{}", not_started_summary(not_started_, runs_.size()));
  }

  const std::vector<PlannedRun>& runs_;
  std::deque<size_t> waiting_;
  std::filesystem::path tasks_file_;   // the frozen runs: task k trains positions[k]
  std::map<size_t, int64_t> task_of_;  // position -> its task in tasks_file_
  std::filesystem::path out_;
  const ParallelOptions& options_;
  DeviceSlots slots_;
  GridProgress display_;
  const TimeLimit& limit_;        // its alarm
  StartRule start_rule_;          // --time-limit: which run may start
  std::set<std::string> warned_;  // warning texts shown already
  std::list<Active> active_;
  std::vector<std::string> held_;
  int failed_ = 0;
  int stopped_ = 0;
  int not_started_ = 0;  // --time-limit: expected to take longer than the time left
  int launched_ = 0;
  int forwarded_ = 0;  // the stop signal passed to the children, 0 while none
  std::optional<std::string> fatal_;
};

}  // namespace

int run_in_children(const std::vector<PlannedRun>& runs, const std::vector<size_t>& positions,
                    const std::filesystem::path& tasks_file, const std::filesystem::path& out,
                    const ParallelOptions& options, const TimeLimit& limit) {
  return Scheduler(runs, positions, tasks_file, out, options, limit).run();
}

namespace {

// The children executor: the runs to train frozen into <out>/<experiment folder>/jobs/<pid>/tasks.json (removed
// when the children have ended), then trained by run_in_children.
class ChildrenExecutor : public Executor {
 public:
  explicit ChildrenExecutor(const RunnerOptions& options) : options_(options) {}

  int execute(const Plan& plan) override {
    const std::vector<size_t> to_train = plan.to_train();
    if (const int finished = plan.finished(); finished > 0)
      spdlog::info("{} of {} runs were already finished and were skipped", finished, plan.positions.size());
    if (to_train.empty()) return 0;
    std::vector<const PlannedRun*> frozen;
    for (const size_t i : to_train) frozen.push_back(&plan.runs[i]);
    const std::filesystem::path dir =
        options_.out / frozen.front()->folder() / "jobs" / std::to_string(static_cast<int64_t>(::getpid()));
    const FolderRemoval removal(dir);
    freeze_tasks(dir / kTaskPlanFile, frozen, plan.spec_file, 1);
    return run_in_children(plan.runs, to_train, dir / kTaskPlanFile, options_.out, options_.parallel,
                           options_.time_limit);
  }

 private:
  // Removes the jobs folder when the command is done with it, however it ends.
  struct FolderRemoval {
    std::filesystem::path dir;
    explicit FolderRemoval(std::filesystem::path d) : dir(std::move(d)) {}
    ~FolderRemoval() {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
      std::filesystem::remove(dir.parent_path(), ignored);  // jobs/, when no other command's folder is in it
    }
  };
  const RunnerOptions& options_;
};

}  // namespace

std::unique_ptr<Executor> children_executor(const RunnerOptions& options) {
  return std::make_unique<ChildrenExecutor>(options);
}

DeviceSlots::DeviceSlots(std::vector<int> devices, int per_device)
    : devices_(std::move(devices)), in_use_(devices_.size(), 0), per_device_(std::max(1, per_device)) {}

std::optional<int> DeviceSlots::acquire() {
  for (size_t tried = 0; tried < devices_.size(); ++tried) {
    const size_t i = (next_ + tried) % devices_.size();
    if (in_use_[i] < per_device_) {
      ++in_use_[i];
      next_ = (i + 1) % devices_.size();
      return devices_[i];
    }
  }
  return std::nullopt;
}

void DeviceSlots::release(int device) {
  for (size_t i = 0; i < devices_.size(); ++i)
    if (devices_[i] == device && in_use_[i] > 0) {
      --in_use_[i];
      return;
    }
}

}  // namespace repro
