#pragma once
// Progress of a whole `repro run`: a live line on a terminal (run i/n, epoch,
// step, loss, examples/s, ETA), periodic log lines otherwise.
#include <chrono>
#include <cstdint>
#include <string>

namespace repro {

class Progress {
 public:
  // `total_runs`: the plan's runs (run i/n counts them); `to_train`: those this command trains, which the ETA
  // counts (finished runs are not waited for).
  Progress(int64_t total_runs, int64_t to_train, bool live);

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
};

std::string format_duration(double seconds);  // 75 -> "1m15s"

}  // namespace repro
