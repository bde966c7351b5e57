#include "run/time_limit.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "record/lifecycle.h"
#include "train/progress.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

int64_t epochs_recorded(const RunFolder& folder) {
  std::error_code error;
  if (!std::filesystem::exists(folder.metrics_path(), error)) return 0;
  try {
    return std::max<int64_t>(
        0, static_cast<int64_t>(
               split_lines(read_regular_file(folder.metrics_path(), kRecordBytes, "a metrics.csv")).size()) -
               1);
  } catch (const std::exception&) {
    return 0;  // being replaced right now: read it next time
  }
}

RunDurations RunDurations::from_folders(const std::vector<PlannedRun>& runs, const std::filesystem::path& out) {
  RunDurations durations;
  for (const PlannedRun& run : runs) {
    try {
      if (const auto record = read_run_record_if_any(RunFolder(out / run.dir()).summary_path()))
        durations.add(*record);
    } catch (const std::exception&) {  // a damaged record says nothing about time; the runner reports it
    }
  }
  return durations;
}

void RunDurations::add(const RunRecord& record) {
  if (record.status != RunState::Complete || record.resumed_from_epoch != 0 || record.wall_seconds <= 0) return;
  double& same = by_configuration_[{record.model_config, record.dataset}];
  same = std::max(same, record.wall_seconds);
  double& any = by_dataset_[record.dataset];
  any = std::max(any, record.wall_seconds);
}

std::optional<double> RunDurations::expected_seconds(const PlannedRun& run, int64_t epochs_done) const {
  double whole = 0;
  if (const auto it = by_configuration_.find({run.model_config, run.dataset}); it != by_configuration_.end())
    whole = it->second;
  else if (const auto any = by_dataset_.find(run.dataset); any != by_dataset_.end())
    whole = any->second;
  else
    return std::nullopt;
  const int64_t epochs = std::max<int64_t>(1, run.options.train.epochs);
  const int64_t left = std::clamp<int64_t>(epochs - epochs_done, 0, epochs);
  return whole * static_cast<double>(left) / static_cast<double>(epochs);
}

// Beyond 1e10 s (three centuries) a limit changes nothing; clamped so that the conversion to the clock's
// nanoseconds cannot overflow (--time-limit 1e300 is a valid number of minutes).
TimeLimit::TimeLimit(double seconds, Clock::time_point start)
    : end_(start + std::chrono::duration_cast<Clock::duration>(
                       std::chrono::duration<double>(std::clamp(seconds, -1e10, 1e10)))) {}

double TimeLimit::seconds_left() const {
  if (!end_) return std::numeric_limits<double>::infinity();
  return std::chrono::duration<double>(*end_ - Clock::now()).count();
}

bool TimeLimit::allows(std::optional<double> expected) const {
  if (!end_) return true;
  const double left = seconds_left();
  if (left <= 0) return false;
  return !expected || *expected <= left;
}

TimeLimit::Alarm::Alarm(const TimeLimit& limit) {
  if (!limit.active()) return;
  // alarm(2) counts whole seconds: round up, and at least 1 (0 would cancel instead of firing now).
  const double left = std::max(1.0, std::ceil(limit.seconds_left()));
  ::alarm(static_cast<unsigned>(std::min(left, 1e9)));
  armed_ = true;
}

TimeLimit::Alarm::~Alarm() {
  if (armed_) ::alarm(0);
}

std::string not_started_reason(std::optional<double> expected_seconds, double seconds_left) {
  if (!expected_seconds || seconds_left <= 0)
    return "not started: the time limit has passed (--time-limit); the same command starts it later";
  return "not started: about " + format_duration(*expected_seconds) + " expected (the longest finished run like it), " +
         format_duration(std::max(0.0, seconds_left)) + " left (--time-limit); the same command starts it later";
}

StartRule::StartRule(const TimeLimit& limit, const std::vector<PlannedRun>& runs, const std::filesystem::path& out)
    : limit_(limit), durations_(limit.active() ? RunDurations::from_folders(runs, out) : RunDurations{}) {}

std::optional<std::string> StartRule::refusal(const PlannedRun& run, const RunFolder& folder) const {
  if (!limit_.active()) return std::nullopt;
  const std::optional<double> expected = durations_.expected_seconds(run, epochs_recorded(folder));
  if (limit_.allows(expected)) return std::nullopt;
  return not_started_reason(expected, limit_.seconds_left());
}

void StartRule::completed(const RunRecord& record) {
  if (limit_.active()) durations_.add(record);
}

std::string not_started_summary(int not_started, size_t total) {
  return std::to_string(not_started) + " of " + std::to_string(total) +
         " runs were not started: each was expected to take longer than the time left (--time-limit); the same "
         "command starts them (exit code 3)";
}

}  // namespace repro
