#pragma once
// The training loop of one run: epochs of AdamW steps with the spec's schedule,
// clipping and label smoothing; evaluation every epoch; a checkpoint at every
// epoch end; resume from the last checkpoint.
#include <string>
#include <vector>

#include "data/batcher.h"
#include "data/dataset.h"
#include "models/model.h"
#include "run/record.h"
#include "spec/grid.h"
#include "train/precision.h"
#include "train/progress.h"

namespace repro {

struct TrainContext {
  const PlannedRun& run;
  const RunData& data;
  torch::Device device;
  const RunFolder& folder;
  Progress& progress;
  int64_t position = 0;          // index of the run in the plan
  int64_t stop_after_epoch = 0;  // > 0: stop (as if interrupted) after this epoch; for tests
  int64_t kill_at_step = 0;      // > 0: SIGKILL this process after this optimizer step; for tests
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
