#include "report/records/copy_records.h"

#include <algorithm>
#include <map>
#include <optional>

#include "record/event_file.h"
#include "record/folder.h"
#include "record/lifecycle.h"
#include "record/plan_record.h"
#include "record/run_record.h"
#include "spec/run_spec.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace fs = std::filesystem;

namespace {

// A regular file's content; nullopt when there is none (absent, a link, a folder, a FIFO).
std::optional<std::string> file_content(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(path, ec))) return std::nullopt;
  return read_regular_file(path, kLogBytes, "a record file");
}

// Why writing `to`/`relative` would go through a symbolic link; "" when it would not.
std::string written_through_link(const fs::path& to, const fs::path& relative) {
  const auto link = first_link_below(to, relative);
  return link ? link->string() + " is a symbolic link (to " + link_target(*link) + "): nothing is written through it"
              : "";
}

// `outer` is `inner` or holds it, both relative paths compared component by component ("" holds everything).
bool holds_relative(const fs::path& outer, const fs::path& inner) {
  auto a = outer.begin(), b = inner.begin();
  for (; a != outer.end(); ++a, ++b)
    if (b == inner.end() || *a != *b) return false;
  return true;
}

// An experiment's folder relative to FROM: a run's is three folders up (<dataset>/<model>/seed_<k>), a plan's its
// own folder.
fs::path experiment_of_run(const fs::path& run) { return run.parent_path().parent_path().parent_path(); }

// What walking FROM found, every path relative to FROM.
struct RecordsFound {
  std::vector<fs::path> runs, plans;
  std::vector<fs::path> skipped;  // temporary folders (`*.tmp-<pid>`: another collect's staging), never records
  std::vector<std::pair<fs::path, std::string>> problems;  // (the path it concerns, the line)
};

RecordsFound find_run_records(const fs::path& from) {
  RecordsFound found;
  const std::string spec_name = RunFolder("").spec_path().filename().string();
  walk_tree(
      from,
      [&](const fs::directory_entry& entry) {
        const fs::path relative = entry.path().lexically_relative(from);
        if (!found.skipped.empty() && holds_relative(found.skipped.back(), relative)) return;  // below it
        std::error_code ec;
        if (is_temp_name(entry.path().filename().string()) && !entry.is_symlink(ec) && entry.is_directory(ec)) {
          found.skipped.push_back(relative);  // a collect's staging (depth first: what follows below it is skipped)
          return;
        }
        if (entry.is_symlink(ec)) {
          found.problems.emplace_back(relative, entry.path().string() + " is a symbolic link (to " +
                                                    link_target(entry.path()) +
                                                    "): a record's own files are collected, never what a link names");
          return;
        }
        if (entry.path().filename() == spec_name || entry.path().filename() == kSummaryFile)  // a run folder's
          found.runs.push_back(relative.parent_path());  // first file, or its record (a spec lost or never written)
        else if (entry.path().filename() == kPlanFile)
          found.plans.push_back(relative);
      },
      [&](const fs::path& folder, const std::string& reason) {
        const std::string line = folder.string() + ": cannot be listed (" + reason + "): nothing below it is collected";
        found.problems.emplace_back(folder.lexically_relative(from), line);
      });
  return found;
}

// The record files of a run folder, relative to it, summary.json last: a copy is a record once it has one.
std::vector<fs::path> record_files(const RunFolder& run) {
  std::vector<fs::path> files;
  for (const fs::path& path :
       {run.spec_path(), run.metrics_path(), run.steps_path(), run.current_events_path(), run.log_path()})
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

// The runs the plans of FROM list, by their folder relative to FROM.
using PlannedAt = std::map<fs::path, PlanEntry>;

// The runs of the same row and dataset that TO holds (its seed folders beside `relative`) trained under other
// settings than the run at FROM/`relative`: "" when none is.
std::string other_settings_in(const fs::path& from, const fs::path& to, const fs::path& relative) {
  const auto spec = file_content(RunFolder(from / relative).spec_path());
  if (!spec) return "";  // nothing to compare (copied as it is)
  const fs::path row_folder = to / relative.parent_path();
  std::error_code ec;
  std::vector<fs::path> seeds;
  for (fs::directory_iterator it(row_folder, ec), end; !ec && it != end; it.increment(ec)) seeds.push_back(it->path());
  std::sort(seeds.begin(), seeds.end());
  for (const auto& seed : seeds) {
    const auto there = file_content(RunFolder(seed).spec_path());
    if (!there) continue;
    const auto changes = setting_differences(*there, *spec, /*ignore_by_design=*/false);
    if (changes.empty()) continue;
    return seed.string() + " holds the same row and dataset trained under other settings (" + changes_text(changes) +
           "): one table would mix them; collect into another results folder, or train the new settings as rows "
           "of their own (a sweep axis)";
  }
  return "";
}

// The run at FROM/`relative`: nullopt when it is not finished (not copied, not refused); else why it is refused
// ("" when it is copied).
std::optional<std::string> run_refusal(const fs::path& from, const fs::path& to, const fs::path& relative,
                                       const PlannedAt& planned, const RecordCheck& check) {
  const RunFolder source(from / relative);
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(source.summary_path(), ec))) return std::nullopt;
  RunRecord record;
  try {
    record = read_run_record(source.summary_path());
  } catch (const std::exception& e) {
    return error_text(e) + ": a record that cannot be read is never copied";
  }
  if (!is_finished(record.status)) return std::nullopt;
  if (const std::string problem = check(source.dir()); !problem.empty())
    return problem + " (repro report marks it so): not copied";
  if (const std::string events = event_file_problem(source.current_events_path()); !events.empty())
    return events + ": not copied; `repro run` of its spec rewrites a finished run's event file from those files";
  if (const auto it = planned.find(relative); it != planned.end()) {
    const PlanEntry& e = it->second;
    if (e.model_config != record.model_config || e.dataset != record.dataset || e.seed != record.seed)
      return source.summary_path().string() + " holds " + record.model_config + " on " + record.dataset + ", seed " +
             std::to_string(record.seed) + "; its plan.json expects " + e.model_config + " on " + e.dataset +
             ", seed " + std::to_string(e.seed) + ": not copied";
  }
  for (const auto& file : record_files(source)) {
    if (const std::string kind = non_regular_kind(source.dir() / file); !kind.empty())
      return (source.dir() / file).string() + ": is " + kind + ", not a record file: not copied";
    if (const std::string why = written_through_link(to, relative / file); !why.empty()) return why;
  }
  const auto there = file_content(to / relative / kSummaryFile);
  if (there && *there != read_regular_file(source.summary_path(), kRecordBytes, "a run record"))
    return (to / relative).string() +
           " holds a different record of this run (its summary.json differs): not overwritten; move one of them "
           "away to keep both";
  return other_settings_in(from, to, relative);
}

// What a collect writes, first into a folder of its own inside TO (TO/.collect.tmp-<pid>, on TO's file system), then
// moved into place by renames, which need no room: a write that fails (a full disk, a quota, a file-size limit)
// leaves TO as it was. The staging folder is removed in any case, TO too when this collect made it and it is empty.
class Staging {
 public:
  explicit Staging(const fs::path& to) : to_(to), stage_(temp_sibling(to / ".collect")), made_to_(!fs::exists(to)) {
    sweep_stale_temp_files(to);  // the staging folder of a collect that was killed
  }
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;
  ~Staging() {
    std::error_code ignored;
    fs::remove_all(stage_, ignored);
    if (made_to_) fs::remove(to_, ignored);  // only when empty: nothing was committed
  }

  // `content` for TO/`relative`, staged.
  void write(const fs::path& relative, const std::string& content) {
    try {
      write_file_atomic(stage_ / relative, content);
    } catch (const WriteError& e) {
      const std::string message = e.what(), staged = "cannot write " + (stage_ / relative).string() + ": ";
      throw WriteError((to_ / relative).string(),
                       (starts_with(message, staged) ? message.substr(staged.size()) : message) +
                           "; nothing was collected: " + to_.string() + " is as it was");
    }
    staged_.push_back(relative);
  }

  // In the order written (a run's summary.json after its other files, plan.json after its runs): the first folder
  // on the way that TO lacks is moved in whole (a new run or experiment appears at once, complete), else the file
  // is renamed onto TO's.
  void commit() {
    for (const auto& relative : staged_) {
      fs::path missing;
      for (const auto& part : relative) {
        missing /= part;
        std::error_code ec;
        if (!fs::exists(fs::symlink_status(to_ / missing, ec))) break;
      }
      std::error_code ec;
      if (!fs::exists(fs::symlink_status(stage_ / missing, ec))) continue;  // moved with its folder already
      commit_file(stage_ / missing, to_ / missing);
    }
    staged_.clear();
  }

 private:
  fs::path to_, stage_;
  bool made_to_;
  std::vector<fs::path> staged_;
};

// Stages the files that differ; true when one did.
bool copy_run(const fs::path& from, const fs::path& to, const fs::path& relative, Staging& staging) {
  bool wrote = false;
  for (const auto& file : record_files(RunFolder(from / relative))) {
    const auto content = file_content(from / relative / file);
    if (!content || file_content(to / relative / file) == content) continue;
    staging.write(relative / file, *content);
    wrote = true;
  }
  return wrote;
}

// The text plan.json at TO/`relative` should hold, or why it cannot. Results hold records, not intentions: of the
// source plan only the runs finished in FROM (`finished`, folders relative to FROM) are kept, merged with TO's plan and
// with the records TO holds of the same experiment and profile that no plan lists (copied before without their plan,
// or written by `repro run --index` before 0.7.1). Empty text when FROM finished none of the plan's runs (TO's
// plan.json, if any, stays as it is).
struct PlanWrite {
  fs::path relative;
  std::string text, refusal;
};

// The records below `folder` (<dataset>/<model configuration>/seed_<k>/summary.json) of `plan`'s experiment and
// profile, as plan entries; a record that cannot be read, or of another experiment, is left out (it stays a
// plan-less record, as `repro status` shows it).
std::vector<PlanEntry> recorded_runs(const fs::path& folder, const PlanRecord& plan) {
  std::vector<PlanEntry> entries;
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(folder, ec))) return entries;
  for (const auto& summary : find_record_files(folder).summaries) {
    const fs::path relative = summary.lexically_relative(folder);
    if (std::distance(relative.begin(), relative.end()) != 4) continue;  // another experiment's folder below this one
    std::optional<RunRecord> record;
    try {
      record = read_run_record(summary);
    } catch (const std::exception&) {
      continue;  // `repro status` and `repro report` name it
    }
    if (record->experiment != plan.experiment || record->profile != plan.profile) continue;
    PlanEntry entry;
    entry.id() = record->id();
    entry.row_index = record->row_index;
    if (entry.dir_in_plan() == relative.parent_path().generic_string())
      entries.push_back(entry);  // a record in the folder its identity names (else not this plan's to list)
  }
  return entries;
}

PlanWrite plan_write(const fs::path& to, const fs::path& relative, const PlanRecord& source,
                     const fs::path& source_path, const std::vector<fs::path>& finished) {
  const fs::path dest = to / relative;
  if (const std::string why = written_through_link(to, relative); !why.empty()) return {relative, "", why};
  PlanRecord kept = source;
  kept.runs.clear();
  for (const auto& entry : source.runs)
    if (std::find(finished.begin(), finished.end(), relative.parent_path() / entry.dir_in_plan()) != finished.end())
      kept.runs.push_back(entry);
  if (kept.runs.empty()) return {relative, "", ""};
  try {
    std::error_code ec;
    PlanRecord earlier = kept;  // TO's plan, else none: the kept header with no runs
    earlier.runs.clear();
    if (fs::exists(fs::symlink_status(dest, ec))) earlier = read_plan_record(dest);
    for (auto& entry : recorded_runs(dest.parent_path(), kept)) earlier.runs.push_back(entry);
    return {relative, plan_record_text(merge_plan_records(earlier, kept)), ""};
  } catch (const std::exception& e) {
    return {relative, "", dest.string() + ": not merged with " + source_path.string() + ": " + error_text(e)};
  }
}

// `inner` is `outer` or a folder below it (both absolute and canonical).
bool holds(const fs::path& outer, const fs::path& inner) {
  const fs::path relative = inner.lexically_relative(outer);
  return !relative.empty() && *relative.begin() != "..";
}

// One experiment of FROM (its folder relative to FROM) and what becomes of it.
struct ExperimentCopy {
  std::vector<fs::path> runs;  // finished, to copy
  std::vector<PlanWrite> plans;
  std::vector<std::string> refused;
};

}  // namespace

CollectTally collect_records(const fs::path& from, const fs::path& to, const RecordCheck& check) {
  if (!fs::is_directory(from)) throw Error(from.string() + ": no such folder (expected an --out folder of runs)");
  const fs::path a = fs::weakly_canonical(fs::absolute(from)), b = fs::weakly_canonical(fs::absolute(to));
  if (holds(a, b) || holds(b, a))
    throw Error("repro collect " + from.string() + " " + to.string() +
                ": one folder holds the other; expected an --out folder and a results folder apart from it");
  RecordsFound found = find_run_records(from);
  std::sort(found.runs.begin(), found.runs.end());  // a folder with a spec and a summary is one run
  found.runs.erase(std::unique(found.runs.begin(), found.runs.end()), found.runs.end());
  CollectTally tally;
  for (const auto& folder : found.skipped)
    if (const std::string note = skipped_temp_note(from / folder); !note.empty()) tally.skipped.push_back(note);
  std::map<fs::path, ExperimentCopy> experiments;
  Staging staging(to);
  PlannedAt planned;
  std::map<fs::path, PlanRecord> plans;  // relative path -> the source plan
  for (const auto& plan : found.plans) {
    experiments[plan.parent_path()];
    try {
      plans[plan] = read_plan_record(from / plan);
      for (const auto& entry : plans[plan].runs) planned[plan.parent_path() / entry.subdir()] = entry;
    } catch (const std::exception& e) {
      found.problems.emplace_back(plan, error_text(e) + ": its experiment is not collected");
    }
  }
  for (const auto& run : found.runs) {
    ExperimentCopy& experiment = experiments[experiment_of_run(run)];
    const auto refusal = run_refusal(from, to, run, planned, check);
    if (!refusal)
      ++tally.unfinished;
    else if (refusal->empty())
      experiment.runs.push_back(run);
    else
      experiment.refused.push_back(*refusal);
  }
  for (const auto& [relative, plan] : plans) {
    ExperimentCopy& experiment = experiments[relative.parent_path()];
    PlanWrite write = plan_write(to, relative, plan, from / relative, experiment.runs);
    if (!write.refusal.empty())
      experiment.refused.push_back(write.refusal);
    else if (!write.text.empty())
      experiment.plans.push_back(write);
  }
  for (const auto& [where, line] : found.problems) {  // links and unreadable folders: every experiment they touch
    tally.refused.push_back(line);
    for (auto& [folder, experiment] : experiments)
      if (where == "." || holds_relative(folder, where) || holds_relative(where, folder))
        experiment.refused.push_back("");  // said once above
  }
  for (auto& [folder, experiment] : experiments) {
    const auto said = std::count(experiment.refused.begin(), experiment.refused.end(), "");
    for (const auto& line : experiment.refused)
      if (!line.empty()) tally.refused.push_back(line);
    if (!experiment.refused.empty()) {
      ++tally.experiments_refused;
      const std::string name = folder.empty() ? from.string() : (from / folder).string();
      tally.refused.push_back(name + ": nothing of this experiment was copied (" +
                              std::to_string(experiment.refused.size() - static_cast<size_t>(said)) +
                              " refusal(s) in it" + (said > 0 ? ", and the problem(s) above" : "") +
                              "): a results folder holds an experiment whole or not at all");
      continue;
    }
    for (const auto& run : experiment.runs) ++(copy_run(from, to, run, staging) ? tally.copied : tally.unchanged);
    for (const auto& plan : experiment.plans) {
      if (file_content(to / plan.relative) == plan.text) continue;  // collecting again changes no byte
      staging.write(plan.relative, plan.text);
      ++tally.plans;
    }
  }
  staging.commit();
  return tally;
}

std::string describe_tally(const CollectTally& tally) {
  const auto count = [](int n, const std::string& what) { return std::to_string(n) + " " + what; };
  return count(tally.copied, "finished run(s) copied") + ", " + count(tally.unchanged, "already there") + ", " +
         count(tally.unfinished, "unfinished not copied") + ", " + count(tally.plans, "plan.json written") +
         (tally.refused.empty()
              ? ""
              : ", " + count(static_cast<int>(tally.refused.size()) - tally.experiments_refused, "refused") +
                    (tally.experiments_refused > 0
                         ? " (" + count(tally.experiments_refused, "experiment(s) not copied") + ")"
                         : ""));
}

}  // namespace repro
