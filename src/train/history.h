#pragma once
// A run's per-epoch history: what the trainer produces, what its checkpoint holds
// and what metrics.csv shows (the run layer writes the file; report reads it back).
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace repro {

// One row of metrics.csv. Accuracies are in percent; NaN where not measured
// (val_* without a validation split).
struct EpochRow {
  int64_t epoch = 0;  // 1-based
  int64_t step = 0;   // optimizer steps so far
  double lr = 0;
  double train_loss = 0, train_acc = 0;
  double val_loss = 0, val_acc = 0;
  double test_loss = 0, test_acc = 0;
  double seconds = 0;  // wall time of this epoch, evaluation included
};

nlohmann::json history_to_json(const std::vector<EpochRow>& rows);
std::vector<EpochRow> history_from_json(const nlohmann::json& json);
std::string metrics_csv(const std::vector<EpochRow>& rows);
// Reads metrics.csv back: the exact header, ten fields a row, numbers (empty =
// not measured), epochs 1, 2, ... in order. Throws repro::Error "PATH:LINE: what".
std::vector<EpochRow> parse_metrics_csv(const std::string& text, const std::filesystem::path& path);
std::vector<std::string> metric_names();  // train_loss ... test_acc
double metric_value(const EpochRow& row, const std::string& name);

}  // namespace repro
