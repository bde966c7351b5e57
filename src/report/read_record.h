#pragma once
// Reads and checks one run folder for `repro report`, through the record layer: summary.json must read
// (record/run_record.h), and metrics.csv must parse and agree with it (epoch count, the selected or final
// epoch's metric) and with the plan. Problems are returned as the state `corrupt` or `inconsistent` with a
// message naming the file, never thrown.
#include <filesystem>
#include <string>

#include "report/collect.h"

namespace repro {

// A run as plan.json lists it.
struct PlannedEntry {
  std::string experiment, profile, model_config, dataset;
  std::string row;                                         // the spec row ("" in older plans)
  std::vector<std::pair<std::string, std::string>> sweep;  // (axis label, value); absent from older plans
  int row_index = 0;
  long long seed = 0;
};

struct RecordRead {
  RunResult result;                 // shown in the plan's cell when planned, else in the cell it claims
  std::string experiment, profile;  // the table it belongs to
  std::string claimed_key;          // experiment|profile|model|dataset|seed as its summary.json says ("" if none)
};

// `planned` is null for a summary.json that no plan lists.
RecordRead read_run_for_table(const std::filesystem::path& run_dir, Metric metric,
                               const PlannedEntry* planned, RecordEpoch epoch = RecordEpoch::Selected);

}  // namespace repro
