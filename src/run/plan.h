#pragma once
// The plan of an experiment: what `--dry-run` prints, plan.json (what `repro
// report` expects), and the check of existing run folders before training.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "data/loader.h"
#include "record/folder.h"
#include "record/lifecycle.h"
#include "run/device.h"
#include "spec/experiment.h"
#include "spec/grid.h"
#include "spec/run_spec.h"

namespace repro {

// Before anything trains: builds the model of every model configuration x dataset and
// checks what its settings must satisfy together (model.dim divisible by model.heads,
// model.patch dividing the image, model.max_len covering the tokens, the model kind
// matching the dataset). No data is read: image shapes and classes come from the
// dataset's manifest; text models get a placeholder vocabulary (the real one is known
// only after tokenizing) and text.max_len tokens. Throws repro::Error naming the run.
void validate_plan(const std::vector<PlannedRun>& runs);

// Why the plan cannot train in `memory`: the first model configuration x dataset whose weights, gradients and
// AdamW state (models/param_count.h training_state_bytes, counted from the options: nothing allocated) exceed it;
// nullopt when every one fits or the memory is unknown. `lanes`: runs trained at once in one process (--lanes),
// each with its own state. `repro run` refuses such a plan before anything is built, --dry-run warns.
std::optional<std::string> memory_refusal(const std::vector<PlannedRun>& runs, const MemoryBudget& memory,
                                          int lanes = 1);

// "" when the run folder holds its spec.resolved.yaml or no record of a run; else the name of a record it holds
// without it (summary.json, model.pt): repro run refuses to train over it (check_plan), repro status calls it
// corrupt. A checkpoint or a metrics.csv alone is what a killed run leaves: resumed from, or rewritten.
std::string record_without_spec(const RunFolder& folder);

// The settings in which the run folder's spec.resolved.yaml differs from `run`'s (empty when the folder holds none
// or the same run's); throws repro::Error when it cannot be read.
std::vector<SettingChange> settings_changed_in(const PlannedRun& run, const RunFolder& folder);
// "a run of a different spec (the first three changes)": what run refuses and status shows.
std::string other_spec_text(const std::vector<SettingChange>& changes);

// Per run: its recorded state when finished (Complete or Diverged: skip), Resumable (a checkpoint of the same
// spec) or Pending (a fresh start, a failed run's retry included).
// Throws, before anything is trained, when a folder holds a run of a different spec.
std::vector<RunState> check_plan(const std::vector<PlannedRun>& runs, const std::filesystem::path& out);

// One command's plan, made once (plan_grid or plan_of_task) and handed to an executor (run/executor.h): the runs,
// which of them this command trains, and their states in --out when the plan was checked.
struct Plan {
  std::vector<PlannedRun> runs;   // the whole grid (plan.json lists it), or the runs of one frozen task
  std::vector<size_t> positions;  // indices into `runs` of the runs this command trains (all, or --index's)
  std::vector<RunState> states;   // per position: check_plan's state (empty until checked)
  std::string spec_file;          // the spec the plan came from (tasks.json records it)

  std::vector<const PlannedRun*> selected() const;
  // The positions whose run is not finished (every position before the plan is checked).
  std::vector<size_t> to_train() const;
  int finished() const;  // positions whose run is finished (complete or diverged)
};

// Expands the grid (run identity checked), then builds the model of every run this command trains
// (validate_plan). `only` = --index: the run at that position alone is trained (the whole grid is still planned);
// throws naming the position when it is past the plan.
Plan plan_grid(const Experiment& experiment, std::optional<int64_t> only = std::nullopt);
// check_plan of the plan's selected runs into plan.states; throws as check_plan does.
void check_plan(Plan& plan, const std::filesystem::path& out);

// The runs of task `index` of a frozen plan (tasks.json, record/task_plan.h), read back from their resolved specs
// (never from the spec file, never by expanding a grid), validated and checked like a grid's.
Plan plan_of_task(const std::filesystem::path& tasks_file, int64_t index, const std::filesystem::path& out);
// Freezes `runs` into `path` (tasks.json) in this order, `runs_per_task` to a task.
void freeze_tasks(const std::filesystem::path& path, const std::vector<const PlannedRun*>& runs,
                  const std::string& spec_file, int64_t runs_per_task);

// Writes <out>/<experiment folder>/plan.json listing every planned run (folders
// relative to the plan's own folder). Under --datasets / --rows / sweep --seeds / sweep --set, the earlier plan's
// runs outside the selection are kept: a table run column by column, or seeds and sweep values added by later
// commands, lists them all. A command that plans the whole grid rewrites the plan.
void write_plan(const Experiment& experiment, const std::vector<PlannedRun>& runs, const std::filesystem::path& out);

// The dry-run listing: each model configuration x dataset with its settings
// that differ from the defaults, its parameter count (from the options: no model is built) and its run folders.
// Text datasets are loaded and tokenized (through `loader`) for their vocabulary size.
std::string describe_plan(const std::vector<PlannedRun>& runs, const std::filesystem::path& out, DataLoader& loader);

}  // namespace repro
