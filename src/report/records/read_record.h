#pragma once
// Reads and checks one run folder for `repro report`, through the record layer: summary.json must read
// (record/run_record.h), and metrics.csv must parse and agree with it (epoch count, the selected or final
// epoch's metric) and with the plan. Problems are returned as the state `corrupt` or `inconsistent` with a
// message naming the file, never thrown.
#include <filesystem>
#include <string>

#include "record/plan_record.h"
#include "report/records/collect.h"

namespace repro {

struct RecordRead {
  RunResult result;         // shown in the plan's cell when planned, else in the cell it claims (its experiment
                            // and profile: the table it belongs to)
  std::string claimed_key;  // the RunId::key() its summary.json claims ("" if none)
};

// `planned` (plan.json's entry) is null for a summary.json that no plan lists.
RecordRead read_run_for_table(const std::filesystem::path& run_dir, Metric metric, const PlanEntry* planned,
                              RecordEpoch epoch = RecordEpoch::Selected);

// What `repro report` finds wrong with the record in `run_dir` ("" when nothing): its problem when it reads as
// corrupt or inconsistent (a summary.json that cannot be read, a metrics.csv missing, short, damaged or disagreeing
// with it). repro collect's RecordCheck (report/records/copy_records.h).
std::string record_problem(const std::filesystem::path& run_dir);

}  // namespace repro
