#include "train/progress.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace repro {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const auto s = static_cast<int64_t>(seconds + 0.5);
  char buffer[32];
  if (s >= 3600)
    std::snprintf(buffer, sizeof buffer, "%lldh%02lldm", (long long)(s / 3600), (long long)(s % 3600 / 60));
  else if (s >= 60)
    std::snprintf(buffer, sizeof buffer, "%lldm%02llds", (long long)(s / 60), (long long)(s % 60));
  else
    std::snprintf(buffer, sizeof buffer, "%llds", (long long)s);
  return buffer;
}

double eta_of_runs(const std::vector<double>& active_left, size_t waiting, double per_run, int slots) {
  if (waiting > 0 && !std::isfinite(per_run)) return NAN;
  // Each slot frees when its run ends; each waiting run starts on the slot that frees first (a run is not split
  // across slots: the last one alone can leave the other slots idle).
  std::vector<double> free_at = active_left;
  while (free_at.size() < static_cast<size_t>(std::max(1, slots))) free_at.push_back(0);
  for (size_t k = 0; k < waiting; ++k) *std::min_element(free_at.begin(), free_at.end()) += per_run;
  return *std::max_element(free_at.begin(), free_at.end());
}

LanePace::LanePace(int lanes, size_t to_train)
    : lanes_(std::max(1, lanes)), to_train_(to_train), left_(static_cast<size_t>(lanes_), NAN),
      whole_(static_cast<size_t>(lanes_), NAN) {}

void LanePace::take() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++taken_;
}

double LanePace::eta_all(int lane, double left, double whole) {
  std::lock_guard<std::mutex> lock(mutex_);
  left_.at(static_cast<size_t>(lane)) = left, whole_.at(static_cast<size_t>(lane)) = whole;
  // The pace of one run: the runs that ended here, else the active runs' own.
  double per_run = ended_ > 0 ? ended_seconds_ / static_cast<double>(ended_) : 0;
  int guesses = 0;
  std::vector<double> active;
  for (size_t k = 0; k < left_.size(); ++k) {
    if (std::isfinite(left_[k])) active.push_back(left_[k]);
    if (ended_ == 0 && std::isfinite(whole_[k])) per_run += whole_[k], ++guesses;
  }
  if (ended_ == 0) {
    if (guesses == 0) return NAN;
    per_run /= guesses;
  }
  return eta_of_runs(active, to_train_ - std::min(to_train_, taken_), per_run, lanes_);
}

void LanePace::ended(int lane, double whole_run_seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  left_.at(static_cast<size_t>(lane)) = whole_.at(static_cast<size_t>(lane)) = NAN;
  ended_seconds_ += whole_run_seconds;
  ++ended_;
}

Progress::Progress(int64_t total_runs, int64_t to_train, bool live, LanePace* pace, int lane)
    : total_runs_(total_runs), to_train_(to_train), live_(live), pace_(pace), lane_(lane) {}

double Progress::seconds_since(Clock::time_point t) const {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

void Progress::begin_run(int64_t run_index, const std::string& label, int64_t epochs, int64_t steps_per_epoch,
                         int64_t start_epoch) {
  run_index_ = run_index;
  ++runs_begun_;
  label_ = label;
  epochs_ = epochs;
  steps_per_epoch_ = steps_per_epoch;
  steps_done_ = 0;
  steps_left_ = (epochs - start_epoch) * steps_per_epoch;
  steps_before_ = start_epoch * steps_per_epoch;
  examples_since_ = 0;
  run_start_ = rate_start_ = last_print_ = Clock::now();
}

double Progress::eta_run_seconds() const {
  if (steps_done_ == 0) return NAN;
  return seconds_since(run_start_) / static_cast<double>(steps_done_) * static_cast<double>(steps_left_);
}

double Progress::eta_all_seconds() const {
  const double left = eta_run_seconds();
  // This run's whole time at its pace so far (a resumed run's steps before this process included).
  const double whole = steps_done_ == 0 ? NAN
                                        : seconds_since(run_start_) / static_cast<double>(steps_done_) *
                                              static_cast<double>(steps_before_ + steps_done_ + steps_left_);
  if (pace_) return pace_->eta_all(lane_, left, whole);
  if (!std::isfinite(left)) return NAN;
  const double per_run = finished_runs_ > 0 ? mean_run_seconds_ : whole;
  return eta_of_runs({left}, static_cast<size_t>(std::max<int64_t>(0, to_train_ - runs_begun_)), per_run, 1);
}

void Progress::step(int64_t epoch, int64_t step_in_epoch, double loss, int64_t examples) {
  ++steps_done_;
  --steps_left_;
  examples_since_ += examples;
  const double since_rate = seconds_since(rate_start_);
  if (since_rate >= 2.0) {
    rate_ = static_cast<double>(examples_since_) / since_rate;
    examples_since_ = 0;
    rate_start_ = Clock::now();
  }
  const double shown_rate = rate_ > 0 ? rate_ : static_cast<double>(examples_since_) / std::max(since_rate, 1e-9);
  const double interval = live_ ? 0.5 : 30.0;
  if (seconds_since(last_print_) < interval) return;
  last_print_ = Clock::now();
  // NaN loss = not read this step (on a GPU, reading it would stall the queue).
  const std::string loss_text = std::isnan(loss) ? "" : fmt::format(" | loss {:.4f}", loss);
  char line[320];
  std::snprintf(line, sizeof line,
                "run %lld/%lld %s | epoch %lld/%lld step %lld/%lld%s | %.0f ex/s | ETA run %s, all %s",
                (long long)(run_index_ + 1), (long long)total_runs_, label_.c_str(), (long long)epoch,
                (long long)epochs_, (long long)step_in_epoch, (long long)steps_per_epoch_, loss_text.c_str(),
                shown_rate, format_duration(eta_run_seconds()).c_str(), format_duration(eta_all_seconds()).c_str());
  print(line);
}

void Progress::clear_line() {
  if (!live_) return;
  std::fprintf(stdout, "\r\033[K");
  std::fflush(stdout);
}

void Progress::end_run() {
  if (steps_done_ == 0) return;  // nothing trained here: says nothing of the pace
  // A resumed run trained only its last steps here: its time is scaled to a whole run's steps, so that the
  // runs still waiting are not estimated at the pace of a run that was nearly done (issue 48).
  const double seconds =
      seconds_since(run_start_) * static_cast<double>(steps_before_ + steps_done_) / static_cast<double>(steps_done_);
  mean_run_seconds_ =
      (mean_run_seconds_ * static_cast<double>(finished_runs_) + seconds) / static_cast<double>(finished_runs_ + 1);
  ++finished_runs_;
  if (pace_) pace_->ended(lane_, seconds);
}

void Progress::print(const std::string& line) {
  if (live_) {
    std::fprintf(stdout, "\r\033[K%s", line.c_str());
    std::fflush(stdout);
  } else {
    spdlog::info("{}", line);
  }
}

}  // namespace repro
