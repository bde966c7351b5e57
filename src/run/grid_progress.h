#pragma once
// Progress of `repro run --jobs N` in the parent: on a terminal a live block (the grid's
// line with its ETA, then one line per active run); otherwise only log lines.
#include <spdlog/common.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace repro {

// One run being trained by a child; its epochs are read from its metrics.csv.
struct ActiveRunProgress {
  using Clock = std::chrono::steady_clock;
  std::string label;
  int64_t epochs_total = 0;
  int64_t epochs_at_start = 0;  // already in metrics.csv when the child started (a resumed run)
  int64_t epochs_done = 0;
  Clock::time_point start;

  double seconds() const;
  // From its pace since it started; none before its first epoch here.
  std::optional<double> seconds_left() const;
};

class GridProgress {
 public:
  GridProgress(size_t plan_runs, size_t to_train, int slots, bool live);
  // A log line; on a terminal the live block is cleared first and redrawn by the next show().
  void log(spdlog::level::level_enum level, const std::string& text);
  // A child ended; `trained` (complete or diverged) durations set the pace of the runs still waiting, each
  // scaled from the epochs it trained here to its whole run (`epochs_before`: those it resumed after).
  void run_ended(double seconds, bool trained, int64_t epochs_before = 0, int64_t epochs_here = 0);
  // "5 left, ETA 1m02s" for the runs not ended yet (the active ones given).
  std::string remaining_text(const std::vector<ActiveRunProgress>& active) const;
  // Redraws the live block (at most twice a second); nothing when not on a terminal.
  void show(const std::vector<ActiveRunProgress>& active);
  void finish();  // clears the live block

  // Seconds until every run has ended; none while nothing is known of the pace.
  std::optional<double> eta_seconds(const std::vector<ActiveRunProgress>& active) const;

 private:
  void clear_block();

  size_t plan_runs_, to_train_;
  int slots_;
  bool live_;
  size_t ended_ = 0, trained_ = 0;
  double trained_seconds_ = 0;
  int drawn_ = 0;  // lines of the live block on screen
  ActiveRunProgress::Clock::time_point last_draw_{};
};

}  // namespace repro
