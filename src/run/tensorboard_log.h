#pragma once
// A run's TensorBoard log (train.tensorboard): events.out.tfevents.repro in the run folder.
// Tags:  train/loss  train/lr  train/grad_norm  train/examples_per_s  cuda/memory_mb   every steps.csv row
//        train/epoch_loss  train/epoch_acc  val/loss  val/acc  test/loss  test/acc      every epoch (its last step)
//        spec (text, step 0): the run's spec.resolved.yaml
// Each value is the float32 of its CSV field (csv_rounded), so TensorBoard and steps.csv/metrics.csv show the same
// numbers. The file is only ever appended to, in step order (TensorBoard reads it live and keeps its offset). A
// fresh start writes a new file; a resume from a checkpoint at step S keeps the file, cuts a killed writer's torn
// tail, appends a SessionLog START at S (TensorBoard then drops what the file held at S or later: the steps a kill
// left past the checkpoint) and shows the checkpoint's rows at S, then each new row as it comes.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "run/event_file.h"
#include "train/history.h"
#include "train/step.h"

namespace repro {

class TensorBoardLog {
 public:
  // The file at `path` (RunFolder::events_path): continued from `resumed_at` (the checkpoint's global step), or
  // started with the spec (nullopt: a fresh start; also a resume that finds no file to continue).
  TensorBoardLog(const std::filesystem::path& path, const std::string& resolved_yaml,
                 std::optional<int64_t> resumed_at);
  // The trainer's hooks: the history and rows it shows (on a start: those of the checkpoint), and each new row.
  void show_history(const std::vector<EpochRow>& history);
  void show_steps(const std::vector<StepRow>& steps);
  void add_step(const StepRow& row);

 private:
  void add_epoch(const EpochRow& row);
  int64_t first_step_ = 0;  // rows before it are in the file already (a resume's START step)
  EventFile file_;
  int64_t last_epoch_step_ = -1;  // the step of the last epoch row written
  int64_t last_step_ = -1;        // the step of the last steps.csv row written
};

}  // namespace repro
