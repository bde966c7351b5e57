#pragma once
// Gathers run records under a folder: the runs each plan.json expects and every
// summary.json found, so missing and failed runs show up instead of vanishing.
// A record that cannot be read (corrupt) or whose files disagree (inconsistent)
// is shown as such with its path instead of aborting the report; two folders
// claiming the same (experiment, profile, model configuration, dataset, seed)
// are an error, so no cell counts a seed twice.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "spec/options.h"

namespace repro {

// What a report finds for one planned or recorded run: a summary.json's RunStatus (complete, diverged, failed),
// or what the folder shows instead. Only Complete counts in a cell.
enum class RecordState {
  Complete,
  Diverged,
  Failed,
  Incomplete,    // a checkpoint, no summary.json yet
  Missing,       // planned, nothing there
  Corrupt,       // summary.json or metrics.csv unreadable or missing fields (RunResult::problem says what)
  Inconsistent,  // the files disagree with each other or with the plan
  NoMetric,      // complete, but without the metric asked for (val_acc without a validation split)
  NotEvaluated,  // complete, but without the `repro eval` evaluation a table asks for
  Link,          // the plan's run folder is (below) a symbolic link: another folder's record, never counted
};
const EnumNames<RecordState>& enum_names(RecordState);
// Which epoch's metrics a table shows (report --epoch): the selected one (summary.json's "selected": the best
// validation epoch, the earliest on a tie) or the last one ("final").
enum class RecordEpoch { Selected, Final };
const EnumNames<RecordEpoch>& enum_names(RecordEpoch);
// As tables show it: the state's name, "no <metric>" for NoMetric.
std::string state_text(RecordState state, const std::string& metric);

struct RunResult {
  std::string model_config, dataset;
  std::string row;                                         // the spec row (model_config without sweep values)
  std::vector<std::pair<std::string, std::string>> sweep;  // (axis label, value) as plan.json lists them
  int row_index = 0;
  long long seed = 0;
  RecordState state = RecordState::Missing;
  double value = 0;  // the metric at the selected (or, report --epoch final, the last) epoch (complete runs)
  bool partial = false;
  std::vector<std::string> notes;
  std::string path;     // the run folder ("" when not read from disk)
  std::string problem;  // corrupt or inconsistent: what is wrong, naming the file
  std::string missing;  // NoMetric: what is missing when it is not the table's metric ("val_acc to select on")
};

struct ExperimentResults {
  std::string name;
  std::vector<std::string> datasets;       // in plan order
  std::vector<std::string> model_configs;  // in row order
  std::vector<RunResult> runs;
  std::string profile;          // the budget profile of these runs ("" when none)
  std::string heading;          // the table's title: the name, plus the profile when two share a name ("" = name)
  std::string baseline;         // the spec's report.baseline as its plan.json records it ("" = the first row)
  std::string baseline_source;  // the plan.json it came from (for messages)
  std::string metric;           // the metric `value` holds (test_acc, …; an evaluation's acc or loss)
  RecordEpoch epoch = RecordEpoch::Selected;  // the epoch `value` is taken at
  std::string selection_note;   // report --select: what was chosen (markdown under the table; "" = none)
};

std::vector<ExperimentResults> collect_results(const std::filesystem::path& dir, const std::string& metric,
                                                RecordEpoch epoch = RecordEpoch::Selected);

// Whether a run's status means its record could not be trusted (corrupt, inconsistent or a link).
bool is_bad_record(const RunResult& run);

}  // namespace repro
