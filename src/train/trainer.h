#pragma once
// The training loop of one run (trainer.cpp's train(), one screen): epochs of AdamW
// steps with the spec's schedule, clipping and label smoothing (train/step.h: the whole step); the
// validation and test metrics every epoch (train/split_metrics); a checkpoint at
// every epoch end, and mid-epoch when interrupted (train/resume); resume from it.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "data/batcher.h"
#include "data/dataset.h"
#include "models/model.h"
#include "spec/grid.h"
#include "train/history.h"
#include "record/lifecycle.h"
#include "train/observer.h"
#include "train/precision.h"
#include "train/progress.h"
#include "train/step.h"

namespace repro {

// How the trainer reports to the layer that runs it (run/ writes the records; the
// trainer knows no run folder). Every hook is optional.
struct TrainHooks {
  // Once, when the run starts: `resumed_at` = the checkpoint's optimizer step on a resume, nullopt on a fresh
  // start. Not called when the checkpoint cannot be read (the run fails naming it; the run folder is left as is).
  std::function<void(std::optional<int64_t> resumed_at)> started;
  // The history to show: called once before the first epoch (the checkpoint's
  // history on a resume, empty on a fresh start) and after every epoch's checkpoint.
  std::function<void(const std::vector<EpochRow>& history)> history_changed;
  // The steps.csv rows (train.log_every) to show: at the same moments as history_changed, and after a
  // mid-epoch checkpoint.
  std::function<void(const std::vector<StepRow>& steps)> steps_changed;
  // Each new steps.csv row as it is made (between checkpoints: a live view such as TensorBoard's).
  std::function<void(const StepRow& row)> step_logged;
  // The model holding the weights of `history`'s last epoch (or freshly initialised, with an empty
  // history): called right after history_changed, before the first epoch and after every epoch's
  // checkpoint. Not called before the first epoch of a resume from a mid-epoch checkpoint (the
  // weights are then not those of an epoch's end). run/model_file keeps model.pt through it.
  std::function<void(torch::nn::Module& model, const std::vector<EpochRow>& history)> model_changed;
  // Polled after every optimizer step and after every epoch's checkpoint:
  // true = stop now. The trainer finishes the step, writes a mid-epoch checkpoint (position,
  // partial totals, generator states) and returns RunState::Interrupted.
  std::function<bool()> interrupt_requested;
};

struct TrainContext {
  const PlannedRun& run;
  const RunData& data;
  torch::Device device;
  std::filesystem::path checkpoint_path;  // resumed from when it exists, written after every epoch (and below)
  Progress& progress;
  int64_t position = 0;  // index of the run in the plan
  TrainHooks hooks;
  const RunObserver* observer = nullptr;  // RunnerOptions::observer: null in repro (train/observer.h)
  // A mid-epoch checkpoint after the step at which this long has passed since the last checkpoint, and training
  // goes on (a SIGKILL then loses at most about this much); 0: only at epoch ends and on interrupt_requested.
  double checkpoint_seconds = 0;
};

struct TrainOutcome {
  RunState status = RunState::Complete;  // Complete, Diverged or Interrupted
  std::string message;  // why, for diverged
  std::vector<EpochRow> history;
  std::vector<StepRow> steps;  // every train.log_every steps
  double wall_seconds = 0;
  int64_t resumed_from_epoch = 0;  // 0 = started fresh
  int64_t steps_this_start = 0;    // optimizer steps made by this call (0: nothing new to keep)
  Precision precision = Precision::Fp32;  // train.precision resolved for the device
  bool cuda_graphs = false;               // whether the step ran as CUDA graphs in this call (train.cuda_graphs)
};

TrainOutcome train(ClassifierImpl& model, const TrainContext& context);

}  // namespace repro
