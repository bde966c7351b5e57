#include "run/grid_progress.h"

#include <spdlog/spdlog.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "train/progress.h"

namespace repro {

namespace {

size_t terminal_columns() {
  winsize size{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 10) return size.ws_col;
  return 100;
}

}  // namespace

double ActiveRunProgress::seconds() const { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::optional<double> ActiveRunProgress::seconds_left() const {
  const int64_t done_here = epochs_done - epochs_at_start;
  if (done_here <= 0) return std::nullopt;
  return seconds() / static_cast<double>(done_here) *
         static_cast<double>(std::max<int64_t>(0, epochs_total - epochs_done));
}

GridProgress::GridProgress(size_t plan_runs, size_t to_train, int slots, bool live)
    : plan_runs_(plan_runs), to_train_(to_train), slots_(std::max(1, slots)), live_(live) {}

void GridProgress::log(spdlog::level::level_enum level, const std::string& text) {
  clear_block();
  spdlog::log(level, "{}", text);
}

void GridProgress::run_ended(double seconds, bool trained, int64_t epochs_before, int64_t epochs_here) {
  ++ended_;
  if (!trained || epochs_here <= 0) return;
  ++trained_;
  // A resumed run trained only its last epochs here: its time is scaled to the whole run (issue 48: a run resumed
  // at its last epoch made the runs still waiting look ten times faster than they are).
  trained_seconds_ +=
      seconds * static_cast<double>(std::max<int64_t>(0, epochs_before) + epochs_here) / static_cast<double>(epochs_here);
}

std::optional<double> GridProgress::eta_seconds(const std::vector<ActiveRunProgress>& active) const {
  // The pace of one run: runs that ended here, else the active runs' own estimates.
  std::optional<double> per_run;
  if (trained_ > 0) per_run = trained_seconds_ / static_cast<double>(trained_);
  double estimated = 0;
  int estimates = 0;
  for (const auto& run : active)
    if (const auto left = run.seconds_left()) {
      estimated += run.seconds() + *left;
      ++estimates;
    }
  if (!per_run && estimates > 0) per_run = estimated / estimates;
  if (!per_run) return std::nullopt;
  std::vector<double> left;
  for (const auto& run : active) left.push_back(run.seconds_left().value_or(std::max(0.0, *per_run - run.seconds())));
  const size_t waiting = to_train_ - std::min(to_train_, ended_ + active.size());
  return eta_of_runs(left, waiting, *per_run, slots_);
}

std::string GridProgress::remaining_text(const std::vector<ActiveRunProgress>& active) const {
  const size_t left = to_train_ - std::min(to_train_, ended_);
  if (left == 0) return "none left";
  const auto eta = eta_seconds(active);
  return std::to_string(left) + " left, ETA " + (eta ? format_duration(*eta) : std::string("?"));
}

void GridProgress::show(const std::vector<ActiveRunProgress>& active) {
  if (!live_) return;
  const auto now = ActiveRunProgress::Clock::now();
  if (drawn_ > 0 && now - last_draw_ < std::chrono::milliseconds(500)) return;
  last_draw_ = now;
  std::vector<std::string> lines;
  lines.push_back("grid: " + std::to_string(ended_) + " of " + std::to_string(to_train_) + " runs ended (" +
                  std::to_string(plan_runs_) + " planned), " + std::to_string(active.size()) + " running | " +
                  remaining_text(active));
  for (const auto& run : active) {
    const auto left = run.seconds_left();
    lines.push_back("  " + run.label + " | epoch " + std::to_string(run.epochs_done) + "/" +
                    std::to_string(run.epochs_total) + " | " + format_duration(run.seconds()) + " | ETA " +
                    (left ? format_duration(*left) : std::string("?")));
  }
  clear_block();
  const size_t columns = terminal_columns();
  for (auto& line : lines) {
    if (line.size() >= columns) line.resize(columns - 1);  // no wrapping: the block must stay its line count
    std::fprintf(stdout, "%s\n", line.c_str());
  }
  std::fflush(stdout);
  drawn_ = static_cast<int>(lines.size());
}

void GridProgress::finish() { clear_block(); }

void GridProgress::clear_block() {
  if (!live_ || drawn_ == 0) return;
  std::fprintf(stdout, "\033[%dA\r\033[J", drawn_);
  std::fflush(stdout);
  drawn_ = 0;
}

}  // namespace repro
