#pragma once
// The training loop of one run: epochs of AdamW steps with the spec's schedule,
// clipping and label smoothing; evaluation every epoch; a checkpoint at every
// epoch end; resume from the last checkpoint.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "data/batcher.h"
#include "data/dataset.h"
#include "models/model.h"
#include "spec/grid.h"
#include "train/history.h"
#include "train/precision.h"
#include "train/progress.h"

namespace repro {

// How the trainer reports to the layer that runs it (run/ writes the records; the
// trainer knows no run folder). Every hook is optional.
struct TrainHooks {
  // The history to show: called once before the first epoch (the checkpoint's
  // history on a resume, empty on a fresh start) and after every epoch's checkpoint.
  std::function<void(const std::vector<EpochRow>& history)> history_changed;
  // Return true to stop after this epoch as if interrupted (a checkpoint is written, no summary).
  std::function<bool(int64_t epoch)> stop_after_epoch;
  // Called after every optimizer step (1-based count over the whole run).
  std::function<void(int64_t step)> after_step;
};

struct TrainContext {
  const PlannedRun& run;
  const RunData& data;
  torch::Device device;
  std::filesystem::path checkpoint_path;  // resumed from when it exists, written after every epoch
  Progress& progress;
  int64_t position = 0;  // index of the run in the plan
  TrainHooks hooks;
};

struct TrainOutcome {
  std::string status;   // complete | diverged | stopped
  std::string message;  // why, for diverged
  std::vector<EpochRow> history;
  double wall_seconds = 0;
  int64_t resumed_from_epoch = 0;  // 0 = started fresh
};

TrainOutcome train(ClassifierImpl& model, const TrainContext& context);

// Mean cross-entropy (no smoothing) and accuracy in percent over a split; NaN when empty.
// Under `precision` (bf16 autocast or fp32); one host read at the end.
std::pair<double, double> evaluate(ClassifierImpl& model, const Split& split, const Batcher& batcher,
                                   torch::Device device, int64_t batch_size, Precision precision = Precision::Fp32);

}  // namespace repro
