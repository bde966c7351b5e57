#include "run/tensorboard_log.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "record/steps_file.h"
#include "run/lock.h"
#include "run/plan.h"
#include "util/csv.h"
#include "util/error.h"
#include "util/files.h"

namespace repro {

namespace {

// A code block keeps the YAML's indentation in TensorBoard's markdown view.
std::string markdown_code(const std::string& text) { return "```yaml\n" + text + "```\n"; }

// A scalar as the file holds it: the float32 of its CSV field, by its bits (a NaN equals itself).
std::string scalar_key(float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return std::to_string(bits);
}

// What a reader of these records shows: TensorBoard's purge (event_file.cpp) drops, at each SessionLog START after
// the first, every step at or after the START's.
TensorBoardLog::Shown shown_by(const std::vector<EventRecord>& events) {
  using Kind = EventRecord::Kind;
  TensorBoardLog::Shown shown;
  int starts = 0;
  for (const auto& event : events) {
    if (event.kind == Kind::Scalar) shown[event.name][event.step].push_back(scalar_key(event.value));
    if (event.kind == Kind::Text) shown[event.name][event.step].push_back(event.text);
    if (event.kind != Kind::SessionStart || starts++ == 0) continue;
    for (auto& [tag, steps] : shown) steps.erase(steps.lower_bound(event.step), steps.end());
  }
  return shown;
}

// The values a steps.csv row and a metrics.csv row write, by tag (NaN: left out where said).
std::vector<std::pair<const char*, double>> step_values(const StepRow& row) {
  return {{"train/loss", row.loss},
          {"train/lr", row.lr},
          {"train/grad_norm", row.grad_norm},
          {"train/examples_per_s", row.examples_per_s},
          {"cuda/memory_mb", row.cuda_memory_mb}};
}

// A NaN in a step row is written (a diverged run shows its loss) but cuda/memory_mb's (the CPU has none).
bool step_value_written(const char* tag, double value) {
  return !(std::isnan(value) && std::strcmp(tag, "cuda/memory_mb") == 0);
}

std::vector<std::pair<const char*, double>> epoch_values(const EpochRow& row) {
  return {{"train/epoch_loss", row.train_loss}, {"train/epoch_acc", row.train_acc},
          {"val/loss", row.val_loss},           {"val/acc", row.val_acc},
          {"test/loss", row.test_loss},         {"test/acc", row.test_acc}};
}

// The wall time a rewritten row takes: that of the last steps.csv row at or before `step`, else `fallback`.
double wall_time_at(int64_t step, const std::vector<StepRow>& steps, double fallback) {
  double wall = fallback;
  for (const auto& row : steps) {
    if (row.step > step) break;
    wall = row.wall_time;
  }
  return wall;
}

// The wall time a session that writes rows from `first` on begins at: that of the last steps.csv row at or before
// it, else of the first one after it, else `now` (nothing to rewrite).
double session_time(int64_t first, const std::vector<StepRow>& steps, double now) {
  if (steps.empty()) return now;
  return steps.front().step <= first ? wall_time_at(first, steps, now) : steps.front().wall_time;
}

// Whether `history` or `steps` holds a row at `first` or later: a session from `first` writes it again.
bool rows_from(int64_t first, const std::vector<EpochRow>& history, const std::vector<StepRow>& steps) {
  return (!history.empty() && history.back().step >= first) || (!steps.empty() && steps.back().step >= first);
}

// What the rows before `before` say a reader should show: tag -> step -> value (the spec at step 0).
std::map<std::string, std::map<int64_t, std::string>> expected_before(int64_t before, const std::string& spec,
                                                                      const std::vector<EpochRow>& history,
                                                                      const std::vector<StepRow>& steps) {
  std::map<std::string, std::map<int64_t, std::string>> expected;
  if (before > 0) expected["spec"][0] = spec;
  for (const auto& row : steps)
    if (row.step < before)
      for (const auto& [tag, value] : step_values(row))
        if (step_value_written(tag, value))
          expected[tag][row.step] = scalar_key(static_cast<float>(csv_rounded(value)));
  for (const auto& row : history)
    if (row.step < before)
      for (const auto& [tag, value] : epoch_values(row))
        if (!std::isnan(value)) expected[tag][row.step] = scalar_key(static_cast<float>(csv_rounded(value)));
  return expected;
}

}  // namespace

TensorBoardLog::TensorBoardLog(const std::filesystem::path& path, const std::string& resolved_yaml,
                               std::optional<int64_t> resumed_at)
    : folder_(path.parent_path()),
      path_(folder_.current_events_path()),
      spec_markdown_(markdown_code(resolved_yaml)),
      resumed_at_(resumed_at.value_or(0)) {
  EventFileScan scan;
  std::error_code ec;
  const auto status = std::filesystem::symlink_status(path_, ec);
  if (auto kept = EventFile::continue_file(path_, scan)) {
    file_.emplace(std::move(*kept));
    opening_ = Opening::Continued;
    had_start_ = std::any_of(scan.events.begin(), scan.events.end(),
                             [](const EventRecord& e) { return e.kind == EventRecord::Kind::SessionStart; });
    shown_ = shown_by(scan.events);
  } else if (std::filesystem::is_regular_file(status)) {
    // Bytes a reader may have read and cannot go past (a torn tail, a damaged record, a damaged first record, not
    // an event file): a new file of the next name, written when the session begins (its START takes the rows'
    // time). The older file stays: TensorBoard's stub reader reopens its file by name at every poll, and one it
    // cannot reopen stops it for good (docs/reliability.md).
    opening_ = Opening::Replaced;
    stop_ = scan.is_event_file() ? scan.stop() + " bytes"
                                 : "not a TensorBoard event file (its first record is damaged or not the "
                                   "file_version event)";
    replaced_ = path_;
    path_ = folder_.next_events_path();
  } else {
    missing_ = !std::filesystem::exists(status);  // else a link or not a regular file: replaced under its name
  }
}

int64_t TensorBoardLog::first_step_to_show(const std::vector<EpochRow>& history,
                                           const std::vector<StepRow>& steps) const {
  if (opening_ != Opening::Continued) return 0;
  const auto expected = expected_before(resumed_at_, spec_markdown_, history, steps);
  int64_t first = resumed_at_;
  // A value the file shows that the rows do not hold (another value, a second one, another run's tag or step).
  for (const auto& [tag, by_step] : shown_) {
    const auto want = expected.find(tag);
    for (const auto& [step, values] : by_step) {
      if (step >= first) break;
      const bool right = want != expected.end() && want->second.count(step) &&
                         values == std::vector<std::string>{want->second.at(step)};
      if (!right) first = step;
    }
  }
  // A value the rows hold that the file does not show (a damaged or missing record).
  for (const auto& [tag, by_step] : expected) {
    const auto have = shown_.find(tag);
    for (const auto& [step, value] : by_step) {
      if (step >= first) break;
      if (have == shown_.end() || !have->second.count(step)) first = step;
    }
  }
  return first;
}

void TensorBoardLog::say_why(int64_t first) const {
  if (finished_) return;  // repair_event_file says it
  if (opening_ == Opening::Replaced) {
    spdlog::warn(
        "{}: {}: the run's scalars are written anew into {} from the checkpoint's rows (those of steps.csv and "
        "metrics.csv); the older file is kept, so an open TensorBoard moves on to the new one (it reads a run's "
        "event files in name order) and its START at step 0 replaces what the older one showed",
        replaced_.string(), stop_, path_.filename().string());
  } else if (opening_ == Opening::Created && missing_ && resumed_at_ > 0) {
    spdlog::warn(
        "{}: missing: the run's scalars are written anew into it from the checkpoint's rows (those of steps.csv and "
        "metrics.csv)",
        path_.string());
  } else if (opening_ == Opening::Continued && first < resumed_at_) {
    spdlog::warn(
        "{}: it does not show the checkpoint's rows (those of steps.csv and metrics.csv) from step {} on (a record "
        "missing, another value, or another run's); they are written again after a SessionLog START at step {}",
        path_.string(), first, first);
  }
}

void TensorBoardLog::begin(const std::vector<EpochRow>& history, const std::vector<StepRow>& steps) {
  begun_ = true;
  const int64_t first = first_step_to_show(history, steps);
  // A session that writes rows again (a new file's, a rewrite's, the checkpoint's own rows at its step) begins at
  // their time, steps.csv's, not at the resume's.
  const double now = unix_time_now();
  const double start_time = rows_from(first, history, steps) ? session_time(first, steps, now) : now;
  if (opening_ != Opening::Continued) {
    file_.emplace(EventFile::create(path_, start_time));  // the version and a START at 0
  } else {
    if (!had_start_) file_->session_start(first, start_time);  // a file of repro 0.4.0: this one counts as the first
    file_->session_start(first, start_time);
  }
  if (first == 0) file_->text("spec", 0, spec_markdown_, start_time);
  say_why(first);
  last_epoch_step_ = last_step_ = first - 1;
  size_t e = 0;  // step rows before the epoch row of the same step, as they were written live
  for (const auto& row : steps) {
    if (row.step < first) continue;
    for (; e < history.size() && history[e].step < row.step; ++e)
      if (history[e].step >= first) add_epoch(history[e], wall_time_at(history[e].step, steps, start_time));
    add_step(row);
  }
  for (; e < history.size(); ++e)
    if (history[e].step >= first) add_epoch(history[e], wall_time_at(history[e].step, steps, start_time));
}

void TensorBoardLog::show_history(const std::vector<EpochRow>& history) {
  if (!begun_) {
    pending_history_ = history;  // shown with the steps, in step order
    return;
  }
  for (const auto& row : history)
    if (row.step > last_epoch_step_) add_epoch(row, unix_time_now());
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
  for (const auto& [tag, value] : step_values(row))
    if (step_value_written(tag, value)) file_->scalar(tag, row.step, csv_rounded(value), row.wall_time);
  last_step_ = row.step;
}

// Validation metrics are NaN without a validation split: left out.
void TensorBoardLog::add_epoch(const EpochRow& row, double wall_time) {
  for (const auto& [tag, value] : epoch_values(row))
    if (!std::isnan(value)) file_->scalar(tag, row.step, csv_rounded(value), wall_time);
  last_epoch_step_ = row.step;
}

namespace {

// "" when the whole event file at `path` shows the spec `spec_markdown` at step 0 (or none: files before repro wrote
// it); else why it holds another run's records.
std::string another_runs_spec(const std::filesystem::path& path, const std::string& spec_markdown) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(std::filesystem::symlink_status(path, ec))) return "";
  const auto shown = shown_by(scan_event_bytes(read_regular_file(path, kLogBytes, "a TensorBoard event file")).events);
  const auto spec = shown.find("spec");
  if (spec == shown.end() || !spec->second.count(0) || spec->second.at(0) == std::vector<std::string>{spec_markdown})
    return "";
  return path.string() +
         ": holds another run's records (the spec it shows at step 0 is not this run's spec.resolved.yaml); "
         "steps.csv and metrics.csv hold the run's rows (`repro run` of its spec writes them into the file anew)";
}

}  // namespace

std::string finished_event_file_problem(const RunFolder& folder) {
  const std::filesystem::path current = folder.current_events_path();
  if (std::string problem = event_file_problem(current); !problem.empty()) return problem;
  try {
    if (!event_files_available() || !std::filesystem::exists(folder.spec_path())) return "";
    return another_runs_spec(current,
                             markdown_code(read_regular_file(folder.spec_path(), kSpecBytes, "spec.resolved.yaml")));
  } catch (const Error& e) {
    return e.what();
  }
}

std::string repair_event_file(const RunFolder& folder, bool tensorboard) {
  if (!event_files_available()) return "";
  const std::filesystem::path current = folder.current_events_path();
  std::error_code ec;
  const bool missing = !std::filesystem::exists(std::filesystem::symlink_status(current, ec));
  if (missing && !tensorboard) return "";
  const std::string problem = missing ? current.string() + ": missing, TensorBoard shows no scalars of the run"
                                      : finished_event_file_problem(folder);
  if (problem.empty()) return "";
  const auto history =
      parse_metrics_csv(read_regular_file(folder.metrics_path(), kRecordBytes, "metrics.csv"), folder.metrics_path());
  std::vector<StepRow> steps;
  if (std::filesystem::exists(folder.steps_path()))
    steps = parse_steps_csv(read_regular_file(folder.steps_path(), kLogBytes, "steps.csv"), folder.steps_path());
  const std::string spec = read_regular_file(folder.spec_path(), kSpecBytes, "a run's spec.resolved.yaml");
  int64_t end = 0;  // past the last row: every row is the checkpoint's
  if (!history.empty()) end = std::max(end, history.back().step + 1);
  if (!steps.empty()) end = std::max(end, steps.back().step + 1);
  bool continued = false;
  {
    TensorBoardLog log(folder.events_path(), spec, end);
    log.finished_ = true;
    continued = log.opening_ == TensorBoardLog::Opening::Continued;
    log.show_history(history);
    log.show_steps(steps);
  }
  const std::string written = folder.current_events_path().filename().string();
  const std::string what = problem.substr(0, problem.find(';')) + ": the finished run's scalars are written ";
  if (continued)
    return what + "again into " + written +
           " from metrics.csv and steps.csv, after a SessionLog START at step 0 "
           "(an open TensorBoard drops what it showed)";
  return what + "anew into " + written + " from metrics.csv and steps.csv" +
         (missing ? "" : "; the older file is kept, so an open TensorBoard moves on to the new one");
}

void repair_event_files(const Plan& plan, const std::filesystem::path& out) {
  for (size_t k = 0; k < plan.positions.size() && k < plan.states.size(); ++k) {
    if (!is_finished(plan.states[k])) continue;
    const PlannedRun& run = plan.runs[plan.positions[k]];
    const RunFolder folder(out / run.dir());
    std::error_code ec;
    const bool missing = !std::filesystem::exists(std::filesystem::symlink_status(folder.current_events_path(), ec));
    if (missing ? !run.options.train.tensorboard : finished_event_file_problem(folder).empty()) continue;
    const auto lock = RunLock::try_acquire(folder.dir());  // another command may be repairing it
    if (!lock) continue;
    try {
      if (const std::string line = repair_event_file(folder, run.options.train.tensorboard); !line.empty())
        spdlog::warn("{}", line);
    } catch (const Error& e) {  // the run stays finished; a new file cut short is replaced at the next repair
      spdlog::warn("{}: the event file cannot be written anew: {}", folder.dir().string(), e.what());
    }
  }
}

}  // namespace repro
