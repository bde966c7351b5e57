#pragma once
// plan.json, an experiment's plan: every run it expects (run folders relative to the plan's own folder), so that
// `repro report` and `repro status` show missing runs instead of losing them. One writer (repro run), one reader.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace repro {

inline constexpr int64_t kPlanRecordVersion = 1;

struct PlanEntry {
  std::string dir;           // <dataset>/<model configuration>/seed_<k>, relative to the plan's folder
  std::string model_config;  // the row's name, with sweep values
  std::string row;           // the spec row ("" in plans written before rows were recorded)
  std::vector<std::pair<std::string, std::string>> sweep;  // (axis label, value) in axis order
  int64_t row_index = 0;
  std::string dataset;
  int64_t seed = 0;
};

struct PlanRecord {
  std::string experiment, profile;
  std::string spec_file, description;
  std::string report_baseline;  // the spec's report.baseline ("" = the first row)
  std::vector<PlanEntry> runs;
};

// Throws RecordError naming the file and the field, repro::Error when it cannot be read.
PlanRecord read_plan_record(const std::filesystem::path& path);
void write_plan_record(const std::filesystem::path& path, const PlanRecord& plan);
// The file's text as write_plan_record writes it (repro collect writes a plan only when this differs).
std::string plan_record_text(const PlanRecord& plan);

// One plan of two plans of the same experiment and profile (records gathered from several --out folders into one
// results folder): `newer`'s header and runs, then `earlier`'s runs of other folders (taking the newer plan's
// row_index where it has their configuration), in grid order (row, dataset in order of appearance, seed). Throws
// repro::Error when the experiments or profiles differ.
PlanRecord merge_plan_records(const PlanRecord& earlier, const PlanRecord& newer);

}  // namespace repro
