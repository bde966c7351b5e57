#pragma once
// repro report --select AXIS[,AXIS…] [--by METRIC] [--select-on mean|seed]: a sweep's axes collapsed per model
// row. Among the values of the selected axes (the candidates: one model configuration each), the one with the
// best validation metric is chosen, and the cell reports the test metric there:
//   mean (default): the candidate with the best mean of METRIC over its seeds; the cell = its seeds' test metric.
//   seed:           per seed, the candidate with the best METRIC on that seed; the cell = those runs' test metric.
// Both choose on validation only, so the test metric is never what is optimised (no test-set selection bias);
// `mean` picks one hyperparameter per model, as a researcher reports it ("lr chosen on validation"), `seed` also
// lets the spread of the choice into the cell's std. Ties go to the first value in the spec's order.
// The collapsed table's rows are the spec rows (plus the axes not selected), so the Welch table and the claims
// compare models, not learning rates.
#include <string>
#include <vector>

#include "report/records/collect.h"

namespace repro {

enum class SelectOn { Mean, Seed };
const EnumNames<SelectOn>& enum_names(SelectOn);

struct SelectOptions {
  std::vector<std::string> axes;  // axis labels ("lr") or the full keys (with their section)
  Metric by = Metric::ValAcc;     // val_acc | val_loss (lower is better) | train_acc | train_loss
  SelectOn on = SelectOn::Mean;
};

// What was chosen for one collapsed row on one dataset (per seed with SelectOn::Seed).
struct Choice {
  std::string row, dataset;
  int64_t seed = -1;                        // -1: the choice for all seeds (mean)
  std::string values;                       // "lr=0.001" ("" when no candidate had the metric)
  double by_value = 0;                      // the METRIC of the choice (its mean over seeds with mean)
  int candidates = 0;                       // candidates with the metric
  int candidates_total = 0;                 // candidates planned
  int n = 0;                                // the seeds behind by_value (mean: the chosen candidate's complete seeds)
  std::vector<std::string> short_of_seeds;  // "lr=0.01: 1 of 2 seeds" for each candidate judged on fewer than it has
  std::vector<std::string> at_edge;         // "lr=0.003, the largest of 0.0003, 0.001, 0.003": the best may lie beyond
};

struct Selection {
  ExperimentResults results;  // collapsed: each cell holds the reported metric of the chosen runs
  std::vector<Choice> choices;
  std::vector<RunResult>
      unchosen_bad;  // corrupt/inconsistent/link records of candidates not chosen: listed, not counted
};

// `reported` and `by` are the same runs collected with the reported metric and with options.by. Throws
// repro::Error naming --select when an axis is not one of the experiment's sweep axes (listing them).
Selection select_axes(const ExperimentResults& reported, const ExperimentResults& by, const SelectOptions& options);

// The markdown table of the choices ("Selected on val_acc …"); select_axes puts it in results.selection_note.
std::string choices_markdown(const Selection& selection, const SelectOptions& options, Metric metric);

// Checks --by: a validation or training metric (selecting on the test set would bias what the table reports).
void check_select_metric(Metric by);
// --by's value: a metric's name, checked as above.
Metric select_metric(const std::string& by);

}  // namespace repro
