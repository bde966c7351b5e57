#pragma once
// What a table, a statistic or a paper cell measures: one enum and one table saying each metric's name, which
// direction is better, how many digits a table prints and its unit. The six per-epoch metrics are the columns of
// metrics.csv and the fields of summary.json's "selected" and "final" (record/epoch_row.h); eval_acc and eval_loss
// are `repro eval`'s (report --eval); params is a paper's parameter count (experiments/paper/*.yaml).
#include <vector>

#include "util/enum_names.h"

namespace repro {

enum class Metric { TrainLoss, TrainAcc, ValLoss, ValAcc, TestLoss, TestAcc, EvalLoss, EvalAcc, Params };
const EnumNames<Metric>& enum_names(Metric);

enum class Better { Higher, Lower };

struct MetricInfo {
  Metric metric;
  const char* name;  // as summary.json, metrics.csv and the command line spell it
  Better better;
  int digits;        // decimals in a table's cells
  const char* unit;  // "%" (accuracies), "" (losses: cross-entropy), "parameters"
  const char* label;  // a figure's axis: "test accuracy (%)", "validation loss (cross-entropy)"
};

const MetricInfo& metric_info(Metric metric);

inline bool lower_is_better(Metric metric) { return metric_info(metric).better == Better::Lower; }
// An accuracy in percent: a value outside 0-100 is an error where one is read.
inline bool is_percent(Metric metric) { return metric_info(metric).unit[0] == '%'; }

// The per-epoch metrics in metrics.csv's column order: train_loss, train_acc, val_loss, val_acc, test_loss, test_acc.
const std::vector<Metric>& epoch_metrics();
bool is_epoch_metric(Metric metric);

}  // namespace repro
