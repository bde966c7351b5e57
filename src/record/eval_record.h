#pragma once
// eval/<name>.json: one `repro eval` of a finished run's model.pt, at one or more evaluation points (one per
// --levels value). One writer (run/eval_run), one reader.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "record/run_id.h"

namespace repro {

inline constexpr int64_t kEvalRecordVersion = 1;

using SettingPairs = std::vector<std::pair<std::string, std::string>>;  // (dotted key, value as written)

struct EvalPoint {
  std::string label;     // the evaluation's name, or the level's label under --levels
  SettingPairs overrides;  // this point's data settings
  std::optional<double> loss, acc;  // null: not measured
  int64_t examples = 0;
  bool partial = false;
  std::vector<std::string> notes;
  // The value of `key` among the overrides; nullopt when this point does not set it.
  std::optional<std::string> setting(const std::string& key) const;
};

// Its base is the identity of the run evaluated (record/run_id.h; row and sweep are not recorded here).
struct EvalRecord : RunId {
  int64_t version = kEvalRecordVersion;  // "record_version"; 0 in records that predate it
  std::string name, split;               // split: test | val
  std::string model_file, model_rule;  // model.pt and the rule that chose its epoch
  int64_t model_epoch = 0;
  SettingPairs overrides;        // the command's --set overrides
  std::string levels_key;        // --levels KEY ("" = none)
  std::vector<std::string> levels_values;
  std::vector<EvalPoint> points;
  // What summary.json recorded for the split at model.pt's epoch (an evaluation without overrides only).
  std::optional<int64_t> recorded_epoch;
  std::optional<double> recorded_loss, recorded_acc;
  nlohmann::json environment;  // run/device's environment record: shown, not interpreted
  std::string git_commit;
  double wall_seconds = 0;
  std::string evaluated_at;  // UTC
};

// Throws RecordError naming the file and the field, repro::Error when it cannot be read.
EvalRecord read_eval_record(const std::filesystem::path& path);
void write_eval_record(const std::filesystem::path& path, const EvalRecord& record);
nlohmann::json eval_record_json(const EvalRecord& record);

}  // namespace repro
