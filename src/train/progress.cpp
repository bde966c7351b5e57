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

Progress::Progress(int64_t total_runs, int64_t to_train, bool live)
    : total_runs_(total_runs), to_train_(to_train), live_(live) {}

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
  const double per_run = finished_runs_ > 0 ? mean_run_seconds_ : seconds_since(run_start_) + eta_run_seconds();
  return eta_run_seconds() + per_run * static_cast<double>(std::max<int64_t>(0, to_train_ - runs_begun_));
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
