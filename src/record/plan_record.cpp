#include "record/plan_record.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "record/json_fields.h"
#include "util/error.h"
#include "util/files.h"

namespace repro {

using nlohmann::json;

namespace {

PlanEntry read_entry(const json& item, const std::filesystem::path& path, size_t index) {
  const JsonFields entry(item, path, "runs[" + std::to_string(index) + "].");
  PlanEntry e;
  read_plan_entry_fields(entry, e, /*since_0_7_1=*/false);
  if (const std::string dir = entry.text("dir"); dir != e.dir_in_plan())  // the folder follows from the identity
    entry.wrong("dir", dir, "expected '" + e.dir_in_plan() + "', the folder of its model_config, dataset and seed");
  return e;
}

}  // namespace

void read_plan_entry_fields(const JsonFields& entry, PlanEntry& e, bool since_0_7_1) {
  e.model_config = entry.text("model_config");
  e.row = since_0_7_1 ? entry.text("row") : entry.optional_text("row").value_or("");
  e.sweep = read_sweep_values(entry, "sweep");
  e.row_index = since_0_7_1 ? entry.integer("row_index") : entry.optional_integer("row_index").value_or(0);
  e.dataset = entry.text("dataset");
  e.seed = entry.integer("seed");
}

PlanRecord read_plan_record(const std::filesystem::path& path) {
  const json parsed = read_json_object(path, kPlanBytes);
  const JsonFields plan(parsed, path);
  PlanRecord p;
  record_version(plan, kPlanRecordVersion);
  p.experiment = plan.text("experiment");
  p.profile = plan.optional_text("profile").value_or("");
  p.spec_file = plan.optional_text("spec_file").value_or("");
  p.description = plan.optional_text("description").value_or("");
  if (const auto report = plan.optional_object("report"))
    p.report_baseline = report->optional_text("baseline").value_or("");
  const json& runs = plan.required("runs");
  if (!runs.is_array()) plan.wrong("runs", runs, "expected a list");
  for (size_t i = 0; i < runs.size(); ++i) {
    p.runs.push_back(read_entry(runs[i], path, i));
    p.runs.back().experiment = p.experiment, p.runs.back().profile = p.profile;  // written once, in the header
  }
  return p;
}

void write_plan_record(const std::filesystem::path& path, const PlanRecord& p) {
  write_file_atomic(path, plan_record_text(p));
}

std::string plan_record_text(const PlanRecord& p) {
  json runs = json::array();
  for (const auto& e : p.runs) {
    runs.push_back({{"dir", e.dir_in_plan()},
                    {"model_config", e.model_config},
                    {"row", e.row},
                    {"sweep", sweep_json(e.sweep)},
                    {"row_index", e.row_index},
                    {"dataset", e.dataset},
                    {"seed", e.seed}});
  }
  const json plan = {{"record_version", kPlanRecordVersion}, {"experiment", p.experiment},     {"profile", p.profile},
                     {"spec_file", p.spec_file},       {"description", p.description},
                     {"report", {{"baseline", p.report_baseline}}}, {"runs", runs}};
  return plan.dump(2) + "\n";
}

PlanRecord merge_plan_records(const PlanRecord& earlier, const PlanRecord& newer) {
  const auto name = [](const PlanRecord& p) {
    return RunId{p.experiment, p.profile}.folder();
  };
  if (name(earlier) != name(newer))
    throw Error("the plans are of different experiments (" + name(earlier) + " and " + name(newer) + ")");
  PlanRecord merged = newer;
  std::set<std::string> dirs;
  std::map<std::string, int64_t> row_index;  // a configuration's place in the newer plan (sweeps shift it)
  for (const auto& entry : newer.runs) dirs.insert(entry.dir_in_plan()), row_index.emplace(entry.model_config, entry.row_index);
  for (PlanEntry entry : earlier.runs) {
    if (!dirs.insert(entry.dir_in_plan()).second) continue;
    if (const auto it = row_index.find(entry.model_config); it != row_index.end()) entry.row_index = it->second;
    merged.runs.push_back(entry);
  }
  std::vector<std::string> datasets;  // in order of appearance, the newer plan's first
  for (const auto& entry : merged.runs)
    if (std::find(datasets.begin(), datasets.end(), entry.dataset) == datasets.end()) datasets.push_back(entry.dataset);
  const auto order = [&](const PlanEntry& e) {
    return std::make_tuple(e.row_index, std::find(datasets.begin(), datasets.end(), e.dataset) - datasets.begin(),
                           e.seed);
  };
  std::stable_sort(merged.runs.begin(), merged.runs.end(),
                   [&](const PlanEntry& a, const PlanEntry& b) { return order(a) < order(b); });
  return merged;
}

}  // namespace repro
