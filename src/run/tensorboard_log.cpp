#include "run/tensorboard_log.h"

#include <cmath>

#include "util/csv.h"

namespace repro {

namespace {

// A code block keeps the YAML's indentation in TensorBoard's markdown view.
std::string markdown_code(const std::string& text) { return "```yaml\n" + text + "```\n"; }

// The file continued from `resumed_at`, or a new one with the spec; `first_step`: the first step to show.
EventFile open_file(const std::filesystem::path& path, const std::string& resolved_yaml,
                    std::optional<int64_t> resumed_at, int64_t& first_step) {
  if (resumed_at)
    if (auto kept = EventFile::resume(path, *resumed_at)) {
      first_step = *resumed_at;
      return std::move(*kept);
    }
  EventFile file = EventFile::create(path);
  file.text("spec", 0, markdown_code(resolved_yaml), unix_time_now());
  first_step = 0;
  return file;
}

}  // namespace

TensorBoardLog::TensorBoardLog(const std::filesystem::path& path, const std::string& resolved_yaml,
                               std::optional<int64_t> resumed_at)
    : file_(open_file(path, resolved_yaml, resumed_at, first_step_)),
      last_epoch_step_(first_step_ - 1),
      last_step_(first_step_ - 1) {}

void TensorBoardLog::show_history(const std::vector<EpochRow>& history) {
  for (const auto& row : history)
    if (row.step > last_epoch_step_) add_epoch(row);
}

void TensorBoardLog::show_steps(const std::vector<StepRow>& steps) {
  for (const auto& row : steps) add_step(row);
}

void TensorBoardLog::add_step(const StepRow& row) {
  if (row.step <= last_step_) return;  // shown already
  const auto scalar = [&](const char* tag, double value) {
    file_.scalar(tag, row.step, csv_rounded(value), row.wall_time);
  };
  scalar("train/loss", row.loss);  // NaN too: a diverged run shows it
  scalar("train/lr", row.lr);
  scalar("train/grad_norm", row.grad_norm);
  scalar("train/examples_per_s", row.examples_per_s);
  if (!std::isnan(row.cuda_memory_mb)) scalar("cuda/memory_mb", row.cuda_memory_mb);  // NaN on the CPU: left out
  last_step_ = row.step;
}

// Validation metrics are NaN without a validation split: left out.
void TensorBoardLog::add_epoch(const EpochRow& row) {
  const double now = unix_time_now();
  const auto scalar = [&](const char* tag, double value) {
    if (!std::isnan(value)) file_.scalar(tag, row.step, csv_rounded(value), now);
  };
  scalar("train/epoch_loss", row.train_loss);
  scalar("train/epoch_acc", row.train_acc);
  scalar("val/loss", row.val_loss);
  scalar("val/acc", row.val_acc);
  scalar("test/loss", row.test_loss);
  scalar("test/acc", row.test_acc);
  last_epoch_step_ = row.step;
}

}  // namespace repro
