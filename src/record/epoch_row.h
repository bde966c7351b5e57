#pragma once
// One epoch of a run's history: what the trainer produces, what its checkpoint holds, what a line of
// metrics.csv and summary.json's "selected" and "final" objects show.
#include <cstdint>
#include <string>
#include <vector>

#include "record/metric.h"

namespace repro {

// Accuracies are in percent; NaN where not measured (val_* without a validation split).
struct EpochRow {
  int64_t epoch = 0;  // 1-based
  int64_t step = 0;   // optimizer steps so far
  double lr = 0;
  double train_loss = 0, train_acc = 0;
  double val_loss = 0, val_acc = 0;
  double test_loss = 0, test_acc = 0;
  double seconds = 0;  // wall time of this epoch, evaluation included
};

std::vector<std::string> metric_names();  // the names of epoch_metrics(): train_loss ... test_acc
// The field of a per-epoch metric (record/metric.h's epoch_metrics()); throws repro::Error for another metric.
double metric_value(const EpochRow& row, Metric metric);
// The same by its name (metrics.csv's writer, train/history.cpp, walks metric_names()).
double metric_value(const EpochRow& row, const std::string& name);

}  // namespace repro
