#pragma once
// plan.json, an experiment's plan: every run it expects (run folders relative to the plan's own folder), so that
// `repro report` and `repro status` show missing runs instead of losing them. One writer (repro run), one reader.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "record/run_id.h"

namespace repro {

inline constexpr int64_t kPlanRecordVersion = 1;

// One planned run. Its identity (record/run_id.h) takes experiment and profile from the plan's header (plan.json
// writes them once) and the rest from the entry; `row` is "" in plans written before rows were recorded.
struct PlanEntry : RunId {
  int64_t row_index = 0;
  // Its folder relative to the plan's folder: <dataset>/<model configuration>/seed_<k> (plan.json's "dir").
  std::string dir_in_plan() const { return subdir(); }
};

struct PlanRecord {
  std::string experiment, profile;
  std::string spec_file, description;
  std::string report_baseline;  // the spec's report.baseline ("" = the first row)
  std::vector<PlanEntry> runs;
};

// Throws RecordError naming the file and the field, repro::Error when it cannot be read.
PlanRecord read_plan_record(const std::filesystem::path& path);

class JsonFields;
struct RunIdFields;
// An entry's identity (`fields`: record/run_id_fields.h) and row_index into `e`: plan.json's entries and
// tasks.json's share them. Row and row_index are required where `fields` requires the row (tasks.json);
// plan.json written before 0.7.1 lacks them.
void read_plan_entry_fields(const JsonFields& entry, PlanEntry& e, const RunIdFields& fields);
// The entry's identity, "dir" and "row_index" as plan.json and tasks.json write them.
nlohmann::json plan_entry_json(const PlanEntry& e, const RunIdFields& fields);
void write_plan_record(const std::filesystem::path& path, const PlanRecord& plan);
// The file's text as write_plan_record writes it (repro collect writes a plan only when this differs).
std::string plan_record_text(const PlanRecord& plan);

// One plan of two plans of the same experiment and profile (records gathered from several --out folders into one
// results folder): `newer`'s header and runs, then `earlier`'s runs of other folders (taking the newer plan's
// row_index where it has their configuration), in grid order (row, dataset in order of appearance, seed). Throws
// repro::Error when the experiments or profiles differ.
PlanRecord merge_plan_records(const PlanRecord& earlier, const PlanRecord& newer);

}  // namespace repro
