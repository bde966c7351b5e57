#pragma once
// Gathers run records under a folder: the runs each plan.json expects and every
// summary.json found, so missing and failed runs show up instead of vanishing.
// A record that cannot be read (corrupt) or whose files disagree (inconsistent)
// is shown as such with its path instead of aborting the report. Two records of one
// results folder claiming the same (experiment, profile, model configuration,
// dataset, seed) are an error, so no cell counts a seed twice; where several results
// folders hold runs of one cell, one folder's are counted by the board's rule
// (report/records/cell_folder.h) and the others named. Temporary folders
// (`*.tmp-<pid>`, repro collect's staging) are skipped and named.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "record/lifecycle.h"
#include "record/metric.h"
#include "record/run_id.h"
#include "report/records/run_filter.h"
#include "spec/options.h"

namespace repro {

// Why a complete run's record still gives a table no value: it lacks the metric asked for (val_acc without a
// validation split) or the `repro eval` evaluation a table asks for.
enum class MetricGap { None, NoMetric, NotEvaluated };
const EnumNames<MetricGap>& enum_names(MetricGap);
// Which epoch's metrics a table shows (report --epoch): the selected one (summary.json's "selected": the best
// validation epoch, the earliest on a tie) or the last one ("final").
enum class RecordEpoch { Selected, Final };
const EnumNames<RecordEpoch>& enum_names(RecordEpoch);

// One run as a table sees it: its identity (record/run_id.h: from plan.json, else its summary.json, else its
// folder), its state and its value.
struct RunResult : RunId {
  int row_index = 0;
  RunState state = RunState::Pending;  // what its folder shows (record/lifecycle.h): counted only when Complete
  MetricGap gap = MetricGap::None;     // a complete run without the value the table asks for
  double value = 0;            // the metric at the selected (or, report --epoch final, the last) epoch (complete runs)
  int64_t selected_epoch = 0;  // the epoch its selection rule picked (summary.json's selected; 0: none)
  int64_t examples = 0;  // the examples `value` was measured on: summary.json's data.test (data.val for val_acc); 0 = ?
  std::string device;    // where it trained: "cpu, LibTorch 1.13.0" (record/run_record.h environment_summary)
  bool partial = false;
  std::vector<std::string> notes;
  std::string path;            // the run folder ("" when not read from disk)
  std::string results_folder;  // the results folder holding it, as the report names it ("runs/table2/gpu"): its
                               // plan's folder; for a record no plan lists, the deepest plan's folder above it,
                               // else the folder above <dataset>/<model>/seed_<n>
  std::string problem;         // corrupt or inconsistent: what is wrong, naming the file
  std::string missing;         // NoMetric: what is missing when it is not the table's metric ("val_acc to select on")
  std::string events_problem;  // a finished run's damaged TensorBoard event file, named (still counted: its numbers
                               // come from metrics.csv); "" when whole or absent
};

struct ExperimentResults {
  std::string name;
  std::vector<std::string> datasets;       // in plan order
  std::vector<std::string> model_configs;  // in row order
  std::vector<RunResult> runs;
  std::string profile;              // the budget profile of these runs ("" when none)
  std::string heading;              // the table's title: the name, plus the profile when two share a name ("" = name)
  std::string baseline;             // the spec's report.baseline as its plan.json records it ("" = the first row)
  std::string baseline_source;      // the plan.json it came from (for messages)
  Metric metric = Metric::TestAcc;  // the metric `value` holds (test_acc, …; an evaluation's eval_acc or eval_loss)
  RecordEpoch epoch = RecordEpoch::Selected;  // the epoch `value` is taken at
  std::string selection_note;                 // report --select: what was chosen (markdown under the table; "" = none)
  std::vector<std::string> other_folders;     // cells several results folders hold: which folder's runs are
                                              // counted and which are not, one line each (cell_folder.h)
};

// The records below `dir`, those `filter` keeps (report --datasets/--rows/--seeds: applied before records are
// matched, so a duplicate the filter leaves out refuses nothing; a selector that selects no run is refused, naming
// those there).
std::vector<ExperimentResults> collect_results(const std::filesystem::path& dir, Metric metric,
                                               RecordEpoch epoch = RecordEpoch::Selected, const RunFilter& filter = {});

// Whether a cell counts the run's value: complete, with the metric.
bool is_counted(const RunResult& run);
// Whether its record could not be trusted (corrupt, inconsistent or a link).
bool is_bad_record(const RunResult& run);

}  // namespace repro
