#include "run/tensorboard_log.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "util/csv.h"

namespace repro {

namespace {

// A code block keeps the YAML's indentation in TensorBoard's markdown view.
std::string markdown_code(const std::string& text) { return "```yaml\n" + text + "```\n"; }

// Tag -> the steps a reader of these records shows: TensorBoard's purge (event_file.cpp) drops, at each SessionLog
// START after the first, every step at or after the START's.
std::map<std::string, std::set<int64_t>> shown_steps(const std::vector<EventRecord>& events) {
  using Kind = EventRecord::Kind;
  std::map<std::string, std::set<int64_t>> shown;
  int starts = 0;
  for (const auto& event : events) {
    if (event.kind == Kind::Scalar || event.kind == Kind::Text) shown[event.name].insert(event.step);
    if (event.kind != Kind::SessionStart || starts++ == 0) continue;
    for (auto& [tag, steps] : shown) steps.erase(steps.lower_bound(event.step), steps.end());
  }
  return shown;
}

// The values a steps.csv row and a metrics.csv row write, by tag (NaN: left out).
std::vector<std::pair<const char*, double>> step_values(const StepRow& row) {
  return {{"train/loss", row.loss},
          {"train/lr", row.lr},
          {"train/grad_norm", row.grad_norm},
          {"train/examples_per_s", row.examples_per_s},
          {"cuda/memory_mb", row.cuda_memory_mb}};
}

std::vector<std::pair<const char*, double>> epoch_values(const EpochRow& row) {
  return {{"train/epoch_loss", row.train_loss}, {"train/epoch_acc", row.train_acc},
          {"val/loss", row.val_loss},           {"val/acc", row.val_acc},
          {"test/loss", row.test_loss},         {"test/acc", row.test_acc}};
}

}  // namespace

TensorBoardLog::TensorBoardLog(const std::filesystem::path& path, const std::string& resolved_yaml,
                               std::optional<int64_t> resumed_at)
    : path_(path), spec_markdown_(markdown_code(resolved_yaml)), resumed_at_(resumed_at.value_or(0)) {
  EventFileScan scan;
  if (auto kept = EventFile::continue_file(path, scan)) {
    file_.emplace(std::move(*kept));
    continued_ = true;
    had_start_ = std::any_of(scan.events.begin(), scan.events.end(),
                             [](const EventRecord& e) { return e.kind == EventRecord::Kind::SessionStart; });
    stop_ = scan.damaged ? scan.stop() : "";  // a torn tail is every kill's: cut without a word
    shown_ = shown_steps(scan.events);
  } else {
    file_.emplace(EventFile::create(path));  // nothing to continue: the file_version event and a START at step 0
  }
}

int64_t TensorBoardLog::first_step_to_show(const std::vector<EpochRow>& history,
                                           const std::vector<StepRow>& steps) const {
  const auto missing = [&](const std::string& tag, int64_t step) {
    const auto it = shown_.find(tag);
    return it == shown_.end() || it->second.count(step) == 0;
  };
  // A row is shown when every value it writes is (a damaged record may have cut one off in the middle).
  const auto row_missing = [&](const std::vector<std::pair<const char*, double>>& values, int64_t step) {
    return std::any_of(values.begin(), values.end(),
                       [&](const auto& value) { return !std::isnan(value.second) && missing(value.first, step); });
  };
  if (missing("spec", 0)) return 0;  // the file does not show the run's beginning
  int64_t first = resumed_at_;
  for (const auto& row : history)
    if (row.step < first && row_missing(epoch_values(row), row.step)) first = row.step;
  for (const auto& row : steps)
    if (row.step < first && row_missing(step_values(row), row.step)) first = row.step;
  return first;
}

void TensorBoardLog::begin(const std::vector<EpochRow>& history, const std::vector<StepRow>& steps) {
  begun_ = true;
  const int64_t first = first_step_to_show(history, steps);
  if (continued_) {
    if (!had_start_) file_->session_start(first);  // a file of repro 0.4.0 or earlier: this one counts as the first
    file_->session_start(first);
  }
  if (first == 0) file_->text("spec", 0, spec_markdown_, unix_time_now());
  if (!stop_.empty() || first < resumed_at_)
    spdlog::warn(
        "{}: {}; the rows from step {} on are written again from the checkpoint's rows (those of "
        "steps.csv and metrics.csv), after a SessionLog START at step {}",
        path_.string(), stop_.empty() ? "rows before the checkpoint's step are missing" : stop_ + ": cut there", first,
        first);
  last_epoch_step_ = last_step_ = first - 1;
  size_t e = 0;  // step rows before the epoch row of the same step, as they were written live
  for (const auto& row : steps) {
    if (row.step < first) continue;
    for (; e < history.size() && history[e].step < row.step; ++e)
      if (history[e].step >= first) add_epoch(history[e]);
    add_step(row);
  }
  for (; e < history.size(); ++e)
    if (history[e].step >= first) add_epoch(history[e]);
}

void TensorBoardLog::show_history(const std::vector<EpochRow>& history) {
  if (!begun_) {
    pending_history_ = history;  // shown with the steps, in step order
    return;
  }
  for (const auto& row : history)
    if (row.step > last_epoch_step_) add_epoch(row);
}

void TensorBoardLog::show_steps(const std::vector<StepRow>& steps) {
  if (!begun_) {
    begin(pending_history_, steps);
    pending_history_.clear();
    return;
  }
  for (const auto& row : steps) add_step(row);
}

void TensorBoardLog::add_step(const StepRow& row) {
  if (!begun_) {
    begin(pending_history_, {});
    pending_history_.clear();
  }
  if (row.step <= last_step_) return;  // shown already
  for (const auto& [tag, value] : step_values(row)) {
    // NaN too: a diverged run shows its loss; cuda/memory_mb is NaN on the CPU: left out
    if (std::isnan(value) && std::string(tag) == "cuda/memory_mb") continue;
    file_->scalar(tag, row.step, csv_rounded(value), row.wall_time);
  }
  last_step_ = row.step;
}

// Validation metrics are NaN without a validation split: left out.
void TensorBoardLog::add_epoch(const EpochRow& row) {
  const double now = unix_time_now();
  for (const auto& [tag, value] : epoch_values(row))
    if (!std::isnan(value)) file_->scalar(tag, row.step, csv_rounded(value), now);
  last_epoch_step_ = row.step;
}

}  // namespace repro
