#pragma once
// Progress of a whole `repro run`: a live line on a terminal (run i/n, epoch,
// step, loss, examples/s, ETA of the run and of all runs), periodic log lines
// otherwise (and with lanes, one per lane, each with the command's one ETA).
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace repro {

// Seconds until every run has ended, `slots` runs at a time: the active runs' seconds left, each its own, then
// `waiting` runs of `per_run` seconds each, every one started on the slot that frees first. The one rule of every
// ETA "all" (this process's lanes, `repro run --jobs`' grid).
double eta_of_runs(const std::vector<double>& active_left, size_t waiting, double per_run, int slots);

// The lanes of one process (`repro run --lanes K`): one pace and one ETA for the whole command, whichever lane
// prints it. Each lane tells it when it takes a run, its run's seconds left, and how long a finished run took.
class LanePace {
 public:
  LanePace(int lanes, size_t to_train);
  void take();  // a lane took the next run of the plan (trained, or skipped: either way it is not waiting)
  // Lane `lane`'s run: `left` seconds left, `whole` its whole run's seconds at its pace (NaN: not known yet);
  // returns the seconds until every run of the command has ended (NaN while no pace is known).
  double eta_all(int lane, double left, double whole);
  void ended(int lane, double whole_run_seconds);  // its run ended after training here: the pace of the rest

 private:
  std::mutex mutex_;
  int lanes_;
  size_t to_train_, taken_ = 0;
  std::vector<double> left_, whole_;  // per lane, NaN: no run or not known
  double ended_seconds_ = 0;
  int64_t ended_ = 0;
};

class Progress {
 public:
  // `total_runs`: the plan's runs (run i/n counts them); `to_train`: those this command trains, which the ETA
  // counts (finished runs are not waited for). With `pace` (a lane `lane` of several), "all" is the command's,
  // from every lane's pace and runs; without, this object's runs alone.
  Progress(int64_t total_runs, int64_t to_train, bool live, LanePace* pace = nullptr, int lane = 0);

  void begin_run(int64_t run_index, const std::string& label, int64_t epochs, int64_t steps_per_epoch,
                 int64_t start_epoch);
  void step(int64_t epoch, int64_t step_in_epoch, double loss, int64_t examples);
  // Clears the live line so that a log line can be printed cleanly.
  void clear_line();
  void end_run();

  // Seconds left for this run and for the whole plan, from the measured pace.
  double eta_run_seconds() const;
  double eta_all_seconds() const;

 private:
  using Clock = std::chrono::steady_clock;
  void print(const std::string& line);
  double seconds_since(Clock::time_point t) const;

  int64_t total_runs_, to_train_, run_index_ = 0;
  int64_t runs_begun_ = 0;
  bool live_;
  std::string label_;
  int64_t epochs_ = 0, steps_per_epoch_ = 0, steps_done_ = 0, steps_left_ = 0;
  int64_t steps_before_ = 0;  // trained before this process resumed the run
  int64_t examples_since_ = 0;
  Clock::time_point run_start_, rate_start_, last_print_;
  double rate_ = 0;  // examples per second
  double mean_run_seconds_ = 0;
  int64_t finished_runs_ = 0;
  LanePace* pace_;
  int lane_;
};

std::string format_duration(double seconds);  // 75 -> "1m15s"

}  // namespace repro
