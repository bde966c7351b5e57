#pragma once
// A run's TensorBoard log (train.tensorboard): events.out.tfevents.repro in the run folder, or the file that
// replaced it (events.out.tfevents.repro.<n>, record/folder.h).
// Tags:  train/loss  train/lr  train/grad_norm  train/examples_per_s  cuda/memory_mb   every steps.csv row
//        train/epoch_loss  train/epoch_acc  val/loss  val/acc  test/loss  test/acc      every epoch (its last step)
//        spec (text, step 0): the run's spec.resolved.yaml
// Each value is the float32 of its CSV field (csv_rounded), so TensorBoard and steps.csv/metrics.csv show the same
// numbers; a steps.csv row's values carry its wall time. A file is only ever appended to, in step order (TensorBoard
// reads it live and keeps its position), and each session begins with a SessionLog START:
// - nothing to continue (no file, not an event file): a file is created (its START at step 0);
// - a file that ends with whole records: continued. Its START is at S, the checkpoint's step (0 on a start again
//   after a kill before the first checkpoint), or at the first step before S where the file does not show exactly
//   what the checkpoint's rows (those of steps.csv and metrics.csv) hold: a row missing, another value (a killed
//   process's row that a later START no longer purges), a record of another run (another spec, tag or step); then
//   the rows from that step on are written again, with steps.csv's wall times, and the new ones as they come;
// - a regular file with bytes after its whole records (a torn tail, a damaged record) or that is no event file (a
//   damaged first record, other bytes): a reader stopped there never reads what follows, so a new file of the next
//   name is written (its START at step 0, then every row), and the older files are kept: TensorBoard's stub reader
//   reopens its file by name at every poll and, finding it gone, stops for good without looking for a later file;
//   with it there, it reads on to the new file, whose START drops what the older one showed (checked with
//   TensorBoard's own loaders: docs/reliability.md). A reader opened later reads them all, to the same view.
// A session that writes rows again stamps them with steps.csv's wall times (its START with the first of them).
// A finished run's file that is damaged, missing or of another run is written anew by `repro run` of its spec
// (repair_event_file).
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "record/event_file.h"
#include "record/folder.h"
#include "train/history.h"
#include "train/step.h"

namespace repro {

class TensorBoardLog {
 public:
  // `path`: the run folder's first event file (RunFolder::events_path); the folder's current file is continued
  // when it ends with whole records, else replaced as above. `resumed_at`: the checkpoint's global step; nullopt:
  // a fresh start, step 0.
  TensorBoardLog(const std::filesystem::path& path, const std::string& resolved_yaml,
                 std::optional<int64_t> resumed_at);
  // The trainer's hooks: the history and rows it shows (on a start: those of the checkpoint, history first, then
  // the steps: the session begins with the second), and each new row.
  void show_history(const std::vector<EpochRow>& history);
  void show_steps(const std::vector<StepRow>& steps);
  void add_step(const StepRow& row);

  // tag -> step -> the values (a scalar's float32 bits, a text) a reader of a file shows at that step.
  using Shown = std::map<std::string, std::map<int64_t, std::vector<std::string>>>;

 private:
  enum class Opening { Created, Continued, Replaced };
  // The session's START (and the spec at step 0 when it starts there), then the rows of `history` and `steps`
  // from its step on, in step order.
  void begin(const std::vector<EpochRow>& history, const std::vector<StepRow>& steps);
  int64_t first_step_to_show(const std::vector<EpochRow>& history, const std::vector<StepRow>& steps) const;
  void say_why(int64_t first) const;
  void add_epoch(const EpochRow& row, double wall_time);
  friend std::string repair_event_file(const RunFolder& folder, bool tensorboard);

  RunFolder folder_;
  std::filesystem::path path_;  // the file written
  std::string spec_markdown_;
  int64_t resumed_at_ = 0;  // the checkpoint's step (0: a fresh start)
  std::optional<EventFile> file_;
  Opening opening_ = Opening::Created;
  bool missing_ = false;    // Created: no file was there (not a link or another kind of file replaced)
  bool had_start_ = false;  // a continued file holds a SessionLog START (files of repro 0.4.0 and earlier do not)
  std::string stop_;        // Replaced: where the records of the file it replaces stopped, and why
  std::filesystem::path replaced_;  // Replaced: that file
  Shown shown_;                     // Continued: what a reader of the file shows
  bool begun_ = false;
  bool finished_ = false;                  // written by repair_event_file, which says so itself
  std::vector<EpochRow> pending_history_;  // shown before the session begins
  int64_t last_epoch_step_ = -1;           // the step of the last epoch row written
  int64_t last_step_ = -1;                 // the step of the last steps.csv row written
};

// For `repro status` and `repro run` of a finished run: "" when its newest event file (the only one a reader ends
// on: the older ones are kept for readers that were open) is absent or whole and shows this run's spec; else one
// line naming the file and what is wrong (event_file_problem's, or another run's records).
std::string finished_event_file_problem(const RunFolder& folder);

// `repro run` of a finished run: when its newest event file is damaged, cut short, not an event file, or missing
// (`tensorboard`: the run's train.tensorboard), a new file of the next name (of the first name when none is left)
// is written from spec.resolved.yaml, metrics.csv and steps.csv, the older ones kept; one of another run's is
// continued after a START at step 0. Returns the line saying so; "" when there was nothing to do (a whole file of
// this run, or a build without event files). Throws repro::Error when those files cannot be read.
std::string repair_event_file(const RunFolder& folder, bool tensorboard);

struct Plan;
// repair_event_file of each finished run of `plan` (checked: Plan::states) under `out`, each under its run lock
// (one held by another process is left alone), each line a warning.
void repair_event_files(const Plan& plan, const std::filesystem::path& out);

}  // namespace repro
