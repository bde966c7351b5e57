#include "record/copy_records.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>

#include "record/folder.h"
#include "record/lifecycle.h"
#include "record/plan_record.h"
#include "record/run_record.h"
#include "util/error.h"
#include "util/files.h"

namespace repro {

namespace fs = std::filesystem;

namespace {

bool is_link(const fs::path& path) {
  std::error_code ec;
  return fs::is_symlink(fs::symlink_status(path, ec));
}

// A regular file's content; nullopt when there is none (or a link is there).
std::optional<std::string> file_content(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(path, ec))) return std::nullopt;
  return read_file(path);
}

// Why writing `to`/`relative` would go through a symbolic link; "" when it would not.
std::string written_through_link(const fs::path& to, const fs::path& relative) {
  const auto link = first_link_below(to, relative);
  return link ? link->string() + " is a symbolic link (to " + link_target(*link) + "): nothing is written through it"
              : "";
}

// The record files of a run folder, relative to it, summary.json last: a copy is a record once it has one.
std::vector<fs::path> record_files(const RunFolder& run) {
  std::vector<fs::path> files;
  for (const fs::path& path :
       {run.spec_path(), run.metrics_path(), run.steps_path(), run.events_path(), run.log_path()})
    files.push_back(path.filename());
  std::vector<fs::path> evals;
  std::error_code ec;
  for (fs::directory_iterator it(run.eval_dir(), ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".json") evals.push_back(run.eval_dir().filename() / it->path().filename());
  std::sort(evals.begin(), evals.end());
  files.insert(files.end(), evals.begin(), evals.end());
  files.push_back(kSummaryFile);
  return files;
}

// Why the run at `from`/`relative` is not copied into `to`, before anything is written; "" when it can be.
std::string refusal(const fs::path& from, const fs::path& to, const fs::path& relative,
                    const std::vector<fs::path>& files) {
  for (const auto& file : files) {
    if (const auto link = first_link_below(from / relative, file))
      return link->string() + " is a symbolic link: a record's own files are copied, not what a link names";
    if (const std::string why = written_through_link(to, relative / file); !why.empty()) return why;
  }
  const auto there = file_content(to / relative / kSummaryFile);
  if (there && *there != read_file(from / relative / kSummaryFile))
    return (to / relative).string() +
           " holds a different record of this run (its summary.json differs): not "
           "overwritten; move one of them away to keep both";
  return "";
}

// Copies the files that differ; true when one did.
bool copy_run(const fs::path& from, const fs::path& to, const fs::path& relative, const std::vector<fs::path>& files) {
  bool wrote = false;
  for (const auto& file : files) {
    const auto content = file_content(from / relative / file);
    if (!content || file_content(to / relative / file) == content) continue;
    write_file_atomic(to / relative / file, *content);
    wrote = true;
  }
  return wrote;
}

void collect_run(const fs::path& from, const fs::path& to, const fs::path& relative, CollectTally& tally) {
  const RunFolder source(from / relative);
  if (is_link(source.summary_path())) {
    tally.refused.push_back(source.summary_path().string() + " is a symbolic link: not a record of this folder");
    return;
  }
  try {
    const std::optional<RunRecord> record = read_run_record_if_any(source.summary_path());
    if (!record || !is_finished(record->status)) {
      ++tally.unfinished;
      return;
    }
  } catch (const std::exception& e) {  // a damaged summary.json is never copied as a record
    tally.refused.push_back(error_text(e));
    return;
  }
  const std::vector<fs::path> files = record_files(source);
  const std::string why = refusal(from, to, relative, files);
  if (!why.empty())
    tally.refused.push_back(why);
  else if (copy_run(from, to, relative, files))
    ++tally.copied;
  else
    ++tally.unchanged;
}

void collect_plan(const fs::path& from, const fs::path& to, const fs::path& relative, CollectTally& tally) {
  const fs::path source = from / relative, dest = to / relative;
  if (is_link(source)) {
    tally.refused.push_back(source.string() + " is a symbolic link: not a plan of this folder");
    return;
  }
  if (const std::string why = written_through_link(to, relative); !why.empty()) {
    tally.refused.push_back(why);
    return;
  }
  try {
    PlanRecord plan = read_plan_record(source);
    if (file_content(dest)) plan = merge_plan_records(read_plan_record(dest), plan);
    write_plan_record(dest, plan);
    ++tally.plans;
  } catch (const WriteError&) {
    throw;  // a full disk fails every later write the same way
  } catch (const std::exception& e) {
    tally.refused.push_back(dest.string() + ": not merged with " + source.string() + ": " + error_text(e));
  }
}

// `inner` is `outer` or a folder below it (both absolute and canonical).
bool holds(const fs::path& outer, const fs::path& inner) {
  const fs::path relative = inner.lexically_relative(outer);
  return !relative.empty() && *relative.begin() != "..";
}

}  // namespace

CollectTally collect_records(const fs::path& from, const fs::path& to) {
  if (!fs::is_directory(from)) throw Error(from.string() + ": no such folder (expected an --out folder of runs)");
  const fs::path a = fs::weakly_canonical(fs::absolute(from)), b = fs::weakly_canonical(fs::absolute(to));
  if (holds(a, b) || holds(b, a))
    throw Error("repro collect " + from.string() + " " + to.string() +
                ": one folder holds the other; expected an --out folder and a results folder apart from it");
  std::vector<fs::path> runs, plans;  // relative to `from`
  std::error_code ec;
  for (fs::recursive_directory_iterator it(from, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& path = it->path();
    if (is_link(path) && fs::is_directory(path, ec))
      spdlog::warn("{}: a symbolic link to a folder (to {}): not followed", path.string(), link_target(path));
    ec.clear();
    const fs::path relative = path.lexically_relative(from);
    if (RunFolder(path.parent_path()).spec_path() == path)  // every run folder's first file
      runs.push_back(relative.parent_path());
    else if (path.filename() == kPlanFile)
      plans.push_back(relative);
  }
  if (ec) throw Error("cannot list " + from.string() + ": " + ec.message());
  std::sort(runs.begin(), runs.end());
  std::sort(plans.begin(), plans.end());
  CollectTally tally;
  for (const auto& run : runs) collect_run(from, to, run, tally);
  for (const auto& plan : plans) collect_plan(from, to, plan, tally);
  return tally;
}

std::string describe_tally(const CollectTally& tally) {
  const auto count = [](int n, const std::string& what) { return std::to_string(n) + " " + what; };
  return count(tally.copied, "finished run(s) copied") + ", " + count(tally.unchanged, "already there") + ", " +
         count(tally.unfinished, "unfinished not copied") + ", " + count(tally.plans, "plan.json written") +
         (tally.refused.empty() ? "" : ", " + count(static_cast<int>(tally.refused.size()), "refused"));
}

}  // namespace repro
