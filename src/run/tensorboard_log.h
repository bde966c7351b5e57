#pragma once
// A run's TensorBoard log (train.tensorboard): events.out.tfevents.repro in the run folder.
// Tags:  train/loss  train/lr  train/grad_norm  train/examples_per_s  cuda/memory_mb   every steps.csv row
//        train/epoch_loss  train/epoch_acc  val/loss  val/acc  test/loss  test/acc      every epoch (its last step)
//        spec (text, step 0): the run's spec.resolved.yaml
// The file is rewritten when a run starts or resumes, from the rows its checkpoint holds (so a resumed run's file
// has no step twice, like steps.csv), then each row is appended as it comes (TensorBoard shows the run live).
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "run/event_file.h"
#include "train/history.h"
#include "train/step_log.h"

namespace repro {

class TensorBoardLog {
 public:
  // Starts the file at `path` (RunFolder::events_path) with the spec.
  TensorBoardLog(const std::filesystem::path& path, const std::string& resolved_yaml);
  // The trainer's hooks: the history and rows it shows (on a start: those of the checkpoint), and each new row.
  void show_history(const std::vector<EpochRow>& history);
  void show_steps(const std::vector<StepRow>& steps);
  void add_step(const StepRow& row);

 private:
  void add_epoch(const EpochRow& row);
  EventFile file_;
  size_t epochs_written_ = 0;
  int64_t last_step_written_ = 0;
};

}  // namespace repro
