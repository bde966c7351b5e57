#include "record/plan_record.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "record/json_fields.h"
#include "record/run_id_fields.h"
#include "util/error.h"
#include "util/files.h"

namespace repro {

using nlohmann::json;

namespace {

// The identity's fields in the header (written once) and in each entry: plan.json written before 0.7.1 lacks the
// entries' row and sweep values.
constexpr RunIdFields kPlanHeaderFields{Presence::Required, Presence::Optional, Presence::Absent, Presence::Absent};
constexpr RunIdFields kPlanEntryFields{Presence::Absent, Presence::Absent, Presence::Required, Presence::Optional};

PlanEntry read_entry(const json& item, const std::filesystem::path& path, size_t index) {
  const JsonFields entry(item, path, "runs[" + std::to_string(index) + "].");
  PlanEntry e;
  read_plan_entry_fields(entry, e, kPlanEntryFields);
  if (const std::string dir = entry.text("dir"); dir != e.dir_in_plan())  // the folder follows from the identity
    entry.wrong("dir", dir, "expected '" + e.dir_in_plan() + "', the folder of its model_config, dataset and seed");
  return e;
}

}  // namespace

void read_plan_entry_fields(const JsonFields& entry, PlanEntry& e, const RunIdFields& fields) {
  read_run_id(entry, e, fields);
  e.row_index =
      fields.row == Presence::Required ? entry.integer("row_index") : entry.optional_integer("row_index").value_or(0);
}

nlohmann::json plan_entry_json(const PlanEntry& e, const RunIdFields& fields) {
  json entry = run_id_json(e, fields);
  entry["dir"] = e.dir_in_plan();
  entry["row_index"] = e.row_index;
  return entry;
}

PlanRecord read_plan_record(const std::filesystem::path& path) {
  const json parsed = read_json_object(path, kPlanBytes);
  const JsonFields plan(parsed, path);
  PlanRecord p;
  record_version(plan, kPlanRecordVersion);
  RunId header;
  read_run_id(plan, header, kPlanHeaderFields);
  p.experiment = header.experiment, p.profile = header.profile;
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
  for (const auto& e : p.runs) runs.push_back(plan_entry_json(e, kPlanEntryFields));
  json plan = {{"record_version", kPlanRecordVersion},
               {"spec_file", p.spec_file},
               {"description", p.description},
               {"report", {{"baseline", p.report_baseline}}},
               {"runs", runs}};
  write_run_id(plan, RunId{p.experiment, p.profile}, kPlanHeaderFields);
  return plan.dump(2) + "\n";
}

PlanRecord merge_plan_records(const PlanRecord& earlier, const PlanRecord& newer) {
  const auto name = [](const PlanRecord& p) { return RunId::folder_of(p.experiment, p.profile); };
  if (name(earlier) != name(newer))
    throw Error("the plans are of different experiments (" + name(earlier) + " and " + name(newer) + ")");
  PlanRecord merged = newer;
  std::set<std::string> dirs;
  std::map<std::string, int64_t> row_index;  // a configuration's place in the newer plan (sweeps shift it)
  for (const auto& entry : newer.runs)
    dirs.insert(entry.dir_in_plan()), row_index.emplace(entry.model_config, entry.row_index);
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
