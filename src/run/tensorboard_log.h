#pragma once
// A run's TensorBoard log (train.tensorboard): events.out.tfevents.repro in the run folder.
// Tags:  train/loss  train/lr  train/grad_norm  train/examples_per_s  cuda/memory_mb   every steps.csv row
//        train/epoch_loss  train/epoch_acc  val/loss  val/acc  test/loss  test/acc      every epoch (its last step)
//        spec (text, step 0): the run's spec.resolved.yaml
// Each value is the float32 of its CSV field (csv_rounded), so TensorBoard and steps.csv/metrics.csv show the same
// numbers. The file is only ever appended to, in step order, with wall times that never go back (TensorBoard reads
// it live and keeps its offset). A file is created only where there is none to continue; every later session (a
// resume from a checkpoint at step S, or a start again after a kill before the first checkpoint, S = 0) keeps it:
// what follows its whole records (a killed writer's torn tail, or a damaged record and everything after it) is cut,
// and a SessionLog START is appended at S, or at the step of the first row before S that the file no longer shows
// (damaged or missing), so that TensorBoard drops what the file held from there; then the checkpoint's rows from
// there on (the rows of steps.csv and metrics.csv), in step order, then each new row as it comes. A damaged file is
// named in a warning.
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "run/event_file.h"
#include "train/history.h"
#include "train/step.h"

namespace repro {

class TensorBoardLog {
 public:
  // The file at `path` (RunFolder::events_path), continued when there is one (`resumed_at`: the checkpoint's
  // global step; nullopt: a fresh start, step 0), else created.
  TensorBoardLog(const std::filesystem::path& path, const std::string& resolved_yaml,
                 std::optional<int64_t> resumed_at);
  // The trainer's hooks: the history and rows it shows (on a start: those of the checkpoint, history first, then
  // the steps: the session begins with the second), and each new row.
  void show_history(const std::vector<EpochRow>& history);
  void show_steps(const std::vector<StepRow>& steps);
  void add_step(const StepRow& row);

 private:
  // The session's START (and the spec at step 0 when it starts there), then the rows of `history` and `steps`
  // from its step on, in step order.
  void begin(const std::vector<EpochRow>& history, const std::vector<StepRow>& steps);
  int64_t first_step_to_show(const std::vector<EpochRow>& history, const std::vector<StepRow>& steps) const;
  void add_epoch(const EpochRow& row);

  std::filesystem::path path_;
  std::string spec_markdown_;
  int64_t resumed_at_ = 0;  // the checkpoint's step (0: a fresh start)
  std::optional<EventFile> file_;
  bool continued_ = false;  // an existing file, appended to (false: created here)
  bool had_start_ = false;  // it holds a SessionLog START (files of repro 0.4.0 and earlier do not)
  std::string stop_;        // where its records stopped before the end ("" when they did not)
  std::map<std::string, std::set<int64_t>> shown_;  // tag -> the steps a reader of the continued file shows
  bool begun_ = false;
  std::vector<EpochRow> pending_history_;  // shown before the session begins
  int64_t last_epoch_step_ = -1;           // the step of the last epoch row written
  int64_t last_step_ = -1;                 // the step of the last steps.csv row written
};

}  // namespace repro
