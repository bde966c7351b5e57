#include "record/task_plan.h"

#include "record/json_fields.h"
#include "record/run_id_fields.h"
#include "util/error.h"
#include "util/files.h"

namespace repro {

using nlohmann::json;

namespace {

// The identity's fields in the header (written once) and in each entry, all written since tasks.json exists.
constexpr RunIdFields kTaskHeaderFields{Presence::Required, Presence::Required, Presence::Absent, Presence::Absent};
constexpr RunIdFields kTaskEntryFields{Presence::Absent, Presence::Absent, Presence::Required, Presence::Required};

TaskEntry read_task_entry(const json& item, const std::filesystem::path& path, size_t index) {
  const JsonFields entry(item, path, "runs[" + std::to_string(index) + "].");
  TaskEntry e;
  read_plan_entry_fields(entry, e, kTaskEntryFields);
  e.position = entry.integer("position");
  e.resolved_spec = entry.text("resolved_spec");
  if (e.model_config != RunId::compose_model_config(e.row, e.sweep))
    entry.wrong("model_config", e.model_config,
                "expected its row and sweep values ('" + RunId::compose_model_config(e.row, e.sweep) + "')");
  return e;
}

}  // namespace

std::vector<TaskEntry> TaskPlan::task(int64_t task, const std::filesystem::path& path) const {
  if (task < 0 || task >= tasks())
    throw Error(path.string() + ": --index " + std::to_string(task) + " is past its " + std::to_string(tasks()) +
                " task(s) (" + std::to_string(runs.size()) + " runs, " + std::to_string(runs_per_task) + " per task)");
  const auto begin = runs.begin() + task * runs_per_task;
  return {begin, begin + std::min<int64_t>(runs_per_task, runs.end() - begin)};
}

TaskPlan read_task_plan(const std::filesystem::path& path) {
  const json parsed = read_json_object(path, kPlanBytes);
  const JsonFields fields(parsed, path);
  record_version(fields, kTaskPlanRecordVersion);
  TaskPlan plan;
  RunId header;
  read_run_id(fields, header, kTaskHeaderFields);
  plan.experiment = header.experiment, plan.profile = header.profile;
  plan.spec_file = fields.text("spec_file");
  plan.runs_per_task = fields.integer("runs_per_task");
  if (plan.runs_per_task < 1) fields.wrong("runs_per_task", plan.runs_per_task, "expected at least 1");
  const json& runs = fields.required("runs");
  if (!runs.is_array()) fields.wrong("runs", runs, "expected a list");
  for (size_t i = 0; i < runs.size(); ++i) {
    plan.runs.push_back(read_task_entry(runs[i], path, i));
    plan.runs.back().experiment = plan.experiment, plan.runs.back().profile = plan.profile;
  }
  return plan;
}

void write_task_plan(const std::filesystem::path& path, const TaskPlan& plan) {
  json runs = json::array();
  for (const auto& e : plan.runs) {
    json entry = plan_entry_json(e, kTaskEntryFields);
    entry["position"] = e.position;
    entry["resolved_spec"] = e.resolved_spec;
    runs.push_back(entry);
  }
  json document = {{"record_version", kTaskPlanRecordVersion},
                   {"spec_file", plan.spec_file},
                   {"runs_per_task", plan.runs_per_task},
                   {"runs", runs}};
  write_run_id(document, RunId{plan.experiment, plan.profile}, kTaskHeaderFields);
  write_file_atomic(path, document.dump(2) + "\n");
}

}  // namespace repro
