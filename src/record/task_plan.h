#pragma once
// tasks.json: a plan frozen for the processes that train it, the children of `repro run --jobs` and the array
// tasks of `repro launch slurm`. Each entry holds a run's identity, its place in the tables and its resolved spec
// (the text of its spec.resolved.yaml), so that a task trains exactly what the command that froze it planned,
// without reading the spec file or expanding the grid again: `repro run --tasks FILE --index I` trains entries
// I*K .. I*K+K-1 (K = runs_per_task). One writer (freeze_tasks in run/plan.cpp), one reader.
//   <out>/<experiment>[/<profile>]/slurm/<stamp>/tasks.json   repro launch slurm
//   <out>/<experiment>[/<profile>]/jobs/<pid>/tasks.json       repro run --jobs (removed when the command ends)
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "record/plan_record.h"

namespace repro {

inline constexpr int64_t kTaskPlanRecordVersion = 1;
inline constexpr const char* kTaskPlanFile = "tasks.json";

struct TaskEntry : PlanEntry {
  int64_t position = 0;       // the run's place in the grid's plan (messages, logs: "run 3" is position 2)
  std::string resolved_spec;  // spec.resolved.yaml's text: every key resolved
};

struct TaskPlan {
  std::string experiment, profile;  // every entry's (written once)
  std::string spec_file;            // the spec it was planned from (shown, not read)
  int64_t runs_per_task = 1;
  std::vector<TaskEntry> runs;      // in the order the tasks train them
  int64_t tasks() const { return (static_cast<int64_t>(runs.size()) + runs_per_task - 1) / runs_per_task; }
  // The entries of task `task` (0-based); throws repro::Error naming `path` when it is past the last task.
  std::vector<TaskEntry> task(int64_t task, const std::filesystem::path& path) const;
};

// Throws RecordError naming the file and the field, repro::Error when it cannot be read.
TaskPlan read_task_plan(const std::filesystem::path& path);
void write_task_plan(const std::filesystem::path& path, const TaskPlan& plan);

}  // namespace repro
