#pragma once
// `repro run/sweep --time-limit MINUTES`: a wall-clock budget for one command, for a lent
// machine or a batch job that ends at a known time. Two rules:
//   - no run starts whose expected wall time is more than the time left (RunDurations);
//   - at the limit, the runs still training write a mid-epoch checkpoint and stop as on
//     SIGTERM: SIGALRM goes through run/interrupt.h's handlers, and the command exits 142
//     (128 + SIGALRM). The same command later resumes them.
// Runs left unstarted are logged one line each; the command then exits 3 (kRunStopped).
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "record/folder.h"
#include "record/run_record.h"
#include "spec/grid.h"

namespace repro {

// The epochs in a run folder's metrics.csv (0 without one).
int64_t epochs_recorded(const RunFolder& folder);

// How long runs of this plan took: the longest wall time among its complete runs that trained
// from their first epoch (a resumed run's wall time covers only its last start), per model
// configuration × dataset and per dataset.
class RunDurations {
 public:
  // From the summary.json of every finished run of `runs` under `out` (unreadable ones are ignored).
  static RunDurations from_folders(const std::vector<PlannedRun>& runs, const std::filesystem::path& out);
  void add(const RunRecord& record);  // a run that just finished
  // Seconds the run is expected to take: the same configuration on the same dataset, else any on the
  // same dataset, scaled by the share of its epochs still to train; nullopt when nothing is known.
  std::optional<double> expected_seconds(const PlannedRun& run, int64_t epochs_done) const;

 private:
  std::map<std::pair<std::string, std::string>, double> by_configuration_;  // (model_config, dataset) -> seconds
  std::map<std::string, double> by_dataset_;
};

class TimeLimit {
 public:
  using Clock = std::chrono::steady_clock;
  TimeLimit() = default;  // no limit
  explicit TimeLimit(double seconds, Clock::time_point start = Clock::now());
  bool active() const { return end_.has_value(); }
  double seconds_left() const;  // ≤ 0 once passed; +inf without a limit
  // Whether a run expected to take `expected` seconds (nullopt: unknown) may start now: always without a
  // limit; never once it has passed; else unless the expectation exceeds the time left.
  bool allows(std::optional<double> expected) const;

  // While alive: SIGALRM is due at the limit (armed only with a limit; cancelled on destruction).
  // Create it after run/interrupt.h's InterruptHandlers, which catch SIGALRM.
  class Alarm {
   public:
    explicit Alarm(const TimeLimit& limit);
    ~Alarm();
    Alarm(const Alarm&) = delete;
    Alarm& operator=(const Alarm&) = delete;

   private:
    bool armed_ = false;
  };

 private:
  std::optional<Clock::time_point> end_;
};

// Why a run did not start: "not started: about 4m30s expected (…), 2m10s left (--time-limit); …", or that the
// limit has passed.
std::string not_started_reason(std::optional<double> expected_seconds, double seconds_left);

// The start rule of one command, where runs are started (run/in_process.cpp in one process, run/parallel.cpp's
// scheduler): the limit, and how long the plan's complete runs took (read only when there is a limit).
class StartRule {
 public:
  StartRule(const TimeLimit& limit, const std::vector<PlannedRun>& runs, const std::filesystem::path& out);
  // Why `run` (its folder `folder`) must not start now, in one line; nullopt when it may.
  std::optional<std::string> refusal(const PlannedRun& run, const RunFolder& folder) const;
  void completed(const RunRecord& record);  // a run of this command completed: its time counts from now on

 private:
  const TimeLimit& limit_;
  RunDurations durations_;
};
// "2 of 35 runs were not started: …": the tally line at the end.
std::string not_started_summary(int not_started, size_t total);

}  // namespace repro
