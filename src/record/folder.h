#pragma once
// One run's folder, and every file in it (the one list; docs/architecture.md shows it):
//   spec.resolved.yaml   the run's settings, resolved (written first; a rerun compares it)
//   lock                 the flock(2) a process training the run holds; its text names the last holder
//                        (record/lock_record.h)
//   log.txt              the run's log
//   checkpoint.pt        while unfinished: the position to resume from (removed when the run ends)
//   metrics.csv          one row per epoch
//   steps.csv            one row per train.log_every optimizer steps
//   events.out.tfevents.repro   the same scalars for TensorBoard (train.tensorboard)
//   events.out.tfevents.repro.<n>   the same, rewritten from steps.csv and metrics.csv where the file before it
//                        (by name, kept) was damaged, cut short or no event file: n = 0002, 0003, ...
//                        (run/tensorboard_log.h); a reader ends on the last of them
//   model.pt             the kept epoch's weights (train.save_model)
//   summary.json         the run record, once the run ended (record/run_record.h)
//   eval/<name>.json     each `repro eval` of the finished run (record/eval_record.h)
#include <filesystem>
#include <string>
#include <vector>

namespace repro {

inline constexpr const char* kSummaryFile = "summary.json";
inline constexpr const char* kPlanFile = "plan.json";

class RunFolder {
 public:
  explicit RunFolder(std::filesystem::path dir) : dir_(std::move(dir)) {}
  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path spec_path() const { return dir_ / "spec.resolved.yaml"; }
  std::filesystem::path lock_path() const { return dir_ / "lock"; }
  std::filesystem::path log_path() const { return dir_ / "log.txt"; }
  std::filesystem::path checkpoint_path() const { return dir_ / "checkpoint.pt"; }
  std::filesystem::path metrics_path() const { return dir_ / "metrics.csv"; }
  std::filesystem::path steps_path() const { return dir_ / "steps.csv"; }
  // The first event file, and those that replace it: TensorBoard reads a folder's event files in name order and
  // moves on to a later name for good, so a rewritten file takes the next name (n = 0002, 0003, ...).
  std::filesystem::path events_path() const;
  std::filesystem::path rewritten_events_path(const std::string& number) const;
  std::vector<std::filesystem::path> event_files() const;  // those in the folder, in name order
  std::filesystem::path current_events_path() const;       // the last of them (events_path() when none)
  std::filesystem::path next_events_path() const;          // the name after the current one
  std::filesystem::path model_path() const { return dir_ / "model.pt"; }
  std::filesystem::path summary_path() const { return dir_ / kSummaryFile; }
  std::filesystem::path eval_dir() const { return dir_ / "eval"; }
  std::filesystem::path eval_path(const std::string& name) const { return eval_dir() / (name + ".json"); }

 private:
  std::filesystem::path dir_;
};

// An experiment's folder (<out>/<experiment>[/<profile>]) holds plan.json (record/plan_record.h).
// The plan.json and summary.json files below `root`, each list sorted; repro collect's staging folders
// (.collect.tmp-PID) are skipped and named in one warning each. Throws repro::Error when `root` cannot be listed.
struct RecordFiles {
  std::vector<std::filesystem::path> plans, summaries;
};
RecordFiles find_record_files(const std::filesystem::path& root);

inline std::filesystem::path plan_path_in(const std::filesystem::path& experiment_folder) {
  return experiment_folder / kPlanFile;
}

}  // namespace repro
