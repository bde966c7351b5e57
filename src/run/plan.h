#pragma once
// The plan of an experiment: what `--dry-run` prints, plan.json (what `repro
// report` expects), and the check of existing run folders before training.
#include <filesystem>
#include <string>
#include <vector>

#include "data/loader.h"
#include "record/lifecycle.h"
#include "run/device.h"
#include "spec/experiment.h"
#include "spec/grid.h"

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
// nullopt when every one fits or the memory is unknown. `repro run` refuses such a plan before anything is built,
// --dry-run warns.
std::optional<std::string> memory_refusal(const std::vector<PlannedRun>& runs, const MemoryBudget& memory);

// Per run: its recorded state when finished (Complete or Diverged: skip), Resumable (a checkpoint of the same
// spec) or Pending (a fresh start, a failed run's retry included).
// Throws, before anything is trained, when a folder holds a run of a different spec.
std::vector<RunState> check_plan(const std::vector<PlannedRun>& runs, const std::filesystem::path& out);

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
