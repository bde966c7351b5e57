#include "run/tensorboard_log.h"

#include <cmath>

namespace repro {

namespace {

// A code block keeps the YAML's indentation in TensorBoard's markdown view.
std::string markdown_code(const std::string& text) { return "```yaml\n" + text + "```\n"; }

}  // namespace

TensorBoardLog::TensorBoardLog(const std::filesystem::path& path, const std::string& resolved_yaml) : file_(path) {
  file_.text("spec", 0, markdown_code(resolved_yaml), unix_time_now());
}

void TensorBoardLog::show_history(const std::vector<EpochRow>& history) {
  for (size_t i = epochs_written_; i < history.size(); ++i) add_epoch(history[i]);
  epochs_written_ = std::max(epochs_written_, history.size());
}

void TensorBoardLog::show_steps(const std::vector<StepRow>& steps) {
  for (const auto& row : steps)
    if (row.step > last_step_written_) add_step(row);
}

void TensorBoardLog::add_step(const StepRow& row) {
  if (row.step <= last_step_written_) return;  // shown already
  file_.scalar("train/loss", row.step, row.loss, row.wall_time);
  file_.scalar("train/lr", row.step, row.lr, row.wall_time);
  file_.scalar("train/grad_norm", row.step, row.grad_norm, row.wall_time);
  file_.scalar("train/examples_per_s", row.step, row.examples_per_s, row.wall_time);
  if (!std::isnan(row.cuda_memory_mb)) file_.scalar("cuda/memory_mb", row.step, row.cuda_memory_mb, row.wall_time);
  last_step_written_ = row.step;
}

// Validation metrics are NaN without a validation split: left out.
void TensorBoardLog::add_epoch(const EpochRow& row) {
  const double now = unix_time_now();
  const auto scalar = [&](const char* tag, double value) {
    if (!std::isnan(value)) file_.scalar(tag, row.step, value, now);
  };
  scalar("train/epoch_loss", row.train_loss);
  scalar("train/epoch_acc", row.train_acc);
  scalar("val/loss", row.val_loss);
  scalar("val/acc", row.val_acc);
  scalar("test/loss", row.test_loss);
  scalar("test/acc", row.test_acc);
}

}  // namespace repro
