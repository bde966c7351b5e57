#include "report/read_record.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "run/record.h"
#include "util/error.h"
#include "util/files.h"

namespace repro {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A problem found while checking: the record's status and what is wrong.
struct BadRecord {
  RecordState state;  // Corrupt or Inconsistent
  std::string problem;
};

[[noreturn]] void corrupt(const fs::path& file, const std::string& what) {
  throw BadRecord{RecordState::Corrupt, file.string() + ": " + what};
}

const json& required(const json& s, const std::string& key, const fs::path& file) {
  const auto it = s.find(key);
  if (it == s.end()) corrupt(file, "lacks '" + key + "'");
  return *it;
}

std::string text_field(const json& s, const std::string& key, const fs::path& file) {
  const json& value = required(s, key, file);
  if (!value.is_string()) corrupt(file, "'" + key + "' is " + value.dump() + ", expected a string");
  return value.get<std::string>();
}

long long integer_field(const json& s, const std::string& key, const fs::path& file) {
  const json& value = required(s, key, file);
  if (!value.is_number_integer()) corrupt(file, "'" + key + "' is " + value.dump() + ", expected a whole number");
  return value.get<long long>();
}

// An optional field: `fallback` when absent; any other type than the expected one is corrupt
// (json's value() would throw its own type_error instead).
bool optional_bool(const json& s, const std::string& key, bool fallback, const fs::path& file) {
  const auto it = s.find(key);
  if (it == s.end()) return fallback;
  if (!it->is_boolean()) corrupt(file, "'" + key + "' is " + it->dump() + ", expected true or false");
  return it->get<bool>();
}

long long optional_integer(const json& s, const std::string& key, long long fallback, const fs::path& file) {
  const auto it = s.find(key);
  if (it == s.end()) return fallback;
  if (!it->is_number_integer()) corrupt(file, "'" + key + "' is " + it->dump() + ", expected a whole number");
  return it->get<long long>();
}

// The metric's value in a summary's "selected" or "final" object (`key`); NaN when the run did not measure it.
double epoch_metric(const json& picked, const std::string& key, const std::string& metric, const fs::path& file) {
  const json& value = required(picked, metric, file);
  if (value.is_null()) return NAN;
  if (!value.is_number()) corrupt(file, "'" + key + "." + metric + "' is " + value.dump() + ", expected a number");
  const double v = value.get<double>();
  const bool accuracy = metric.find("acc") != std::string::npos;
  if (!std::isfinite(v) || v < 0 || (accuracy && v > 100))
    corrupt(file, "'" + key + "." + metric + "' is " + value.dump() + ", outside " + (accuracy ? "0-100" : "0-inf"));
  return v;
}

bool close(double a, double b) { return std::fabs(a - b) <= 1e-6 * std::max(1.0, std::fabs(b)); }

// metrics.csv must parse and agree with summary.json's epoch count and its `key` ("selected"/"final") epoch.
void check_metrics(const fs::path& run_dir, const json& summary, const std::string& key, const std::string& metric,
                   double value) {
  const fs::path file = run_dir / "metrics.csv", summary_file = run_dir / "summary.json";
  const long long epochs_run = optional_integer(summary, "epochs_run", 0, summary_file);
  if (!fs::exists(file)) {
    if (epochs_run == 0) return;  // diverged or failed in its first epoch
    corrupt(file, "is missing (summary.json says " + std::to_string(epochs_run) + " epochs ran)");
  }
  std::vector<EpochRow> rows;
  try {
    rows = parse_metrics_csv(read_file(file), file);
  } catch (const Error& e) {
    throw BadRecord{RecordState::Corrupt, e.what()};
  }
  if (static_cast<long long>(rows.size()) != epochs_run)
    throw BadRecord{RecordState::Inconsistent, file.string() + " has " + std::to_string(rows.size()) + " epochs, " +
                                        summary_file.string() + " says " + std::to_string(epochs_run)};
  if (!summary.contains(key) || !summary[key].is_object()) return;
  const long long epoch = optional_integer(summary[key], "epoch", 0, summary_file);
  if (epoch < 1 || epoch > static_cast<long long>(rows.size()))
    corrupt(summary_file, key + " epoch " + std::to_string(epoch) + " is not among the " +
                              std::to_string(rows.size()) + " epochs of metrics.csv");
  const double in_csv = metric_value(rows[epoch - 1], metric);
  if (std::isnan(in_csv) != std::isnan(value) || (!std::isnan(value) && !close(in_csv, value)))
    throw BadRecord{RecordState::Inconsistent, file.string() + " epoch " + std::to_string(epoch) + " has " + metric + " " +
                                        std::to_string(in_csv) + ", " + summary_file.string() + " says " +
                                        std::to_string(value)};
}

// Fills `out` from a parsed summary.json; throws BadRecord.
void read_summary(const fs::path& run_dir, const json& s, const std::string& metric, RecordEpoch epoch,
                  const PlannedEntry* planned, RecordRead& out) {
  const fs::path file = run_dir / "summary.json";
  if (!s.is_object()) corrupt(file, "is " + std::string(s.type_name()) + ", expected a JSON object");
  RunResult& r = out.result;
  const std::string status = text_field(s, "status", file);
  const std::string experiment = text_field(s, "experiment", file), model = text_field(s, "model_config", file),
                    dataset = text_field(s, "dataset", file);
  const long long seed = integer_field(s, "seed", file);
  const std::string profile = s.contains("profile") && s["profile"].is_string() ? s["profile"].get<std::string>() : "";
  out.claimed_key = experiment + "|" + profile + "|" + model + "|" + dataset + "|" + std::to_string(seed);
  if (!planned) {
    out.experiment = experiment, out.profile = profile;
    r.model_config = model, r.dataset = dataset, r.seed = seed;
    r.row_index = s.contains("row_index") && s["row_index"].is_number_integer() ? s["row_index"].get<int>() : 0;
  } else if (model != planned->model_config || dataset != planned->dataset || seed != planned->seed) {
    throw BadRecord{RecordState::Inconsistent, file.string() + " holds " + model + " on " + dataset + ", seed " +
                                        std::to_string(seed) + "; plan.json expects " + planned->model_config + " on " +
                                        planned->dataset + ", seed " + std::to_string(planned->seed)};
  }
  if (s.contains("data") && s["data"].is_object()) {
    r.partial = optional_bool(s["data"], "partial", false, file);
    if (s["data"].contains("notes") && s["data"]["notes"].is_array())
      for (const auto& note : s["data"]["notes"])
        if (note.is_string()) r.notes.push_back(note.get<std::string>());
  }
  const RunStatus recorded = [&] {  // a summary.json holds one of the final statuses
    for (const RunStatus final_status : {RunStatus::Complete, RunStatus::Diverged, RunStatus::Failed})
      if (status == name_of(final_status)) return final_status;
    corrupt(file, "status '" + status + "', expected complete, diverged or failed");
  }();
  r.state = recorded == RunStatus::Complete ? RecordState::Complete
            : recorded == RunStatus::Diverged ? RecordState::Diverged
                                              : RecordState::Failed;
  if (recorded == RunStatus::Failed) return;
  double value = NAN;
  const std::string key = name_of(epoch);  // "selected" | "final": summary.json's object of that epoch
  if (recorded == RunStatus::Complete) {
    const json picked = required(s, key, file);  // a copy: GCC 14 -Wdangling-reference
    if (!picked.is_object()) corrupt(file, "'" + key + "' is " + picked.dump() + ", expected an object");
    value = epoch_metric(picked, key, metric, file);
    if (std::isnan(value))
      r.state = RecordState::NoMetric;  // e.g. val_acc without a validation split
    else
      r.value = value;
  }
  check_metrics(run_dir, s, key, metric, value);
}

// The cell a record without a readable summary belongs to: from the plan, else
// from its path <experiment>[/<profile>]/<dataset>/<model>/seed_<k>.
void place_by_plan_or_path(const fs::path& run_dir, const PlannedEntry* planned, RecordRead& out) {
  RunResult& r = out.result;
  if (planned) return;
  const std::string seed_name = run_dir.filename().string();
  r.seed = seed_name.rfind("seed_", 0) == 0 ? std::atoll(seed_name.c_str() + 5) : 0;
  r.model_config = run_dir.parent_path().filename().string();
  r.dataset = run_dir.parent_path().parent_path().filename().string();
  out.experiment = run_dir.parent_path().parent_path().parent_path().filename().string();
  r.row_index = 1 << 20;  // after the planned rows
}

}  // namespace

RecordRead read_run_record(const fs::path& run_dir, const std::string& metric, const PlannedEntry* planned,
                           RecordEpoch epoch) {
  RecordRead out;
  RunResult& r = out.result;
  r.path = run_dir.string();
  if (planned) {
    out.experiment = planned->experiment, out.profile = planned->profile;
    r.model_config = planned->model_config, r.dataset = planned->dataset;
    r.row = planned->row, r.sweep = planned->sweep;
    r.row_index = planned->row_index, r.seed = planned->seed;
  }
  const fs::path file = run_dir / "summary.json";
  if (!fs::exists(file)) {
    r.state = fs::exists(run_dir / "checkpoint.pt") ? RecordState::Incomplete : RecordState::Missing;
    return out;
  }
  try {
    json summary;
    try {
      summary = json::parse(read_file(file));
    } catch (const json::exception& e) {
      corrupt(file, std::string("not valid JSON (") + e.what() + ")");
    } catch (const Error& e) {
      throw BadRecord{RecordState::Corrupt, e.what()};
    }
    read_summary(run_dir, summary, metric, epoch, planned, out);
  } catch (const BadRecord& bad) {
    if (out.experiment.empty() && !planned) place_by_plan_or_path(run_dir, planned, out);
    r.state = bad.state;
    r.problem = bad.problem;
    r.value = 0;
  }
  return out;
}

}  // namespace repro
