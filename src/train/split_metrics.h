#pragma once
// A model's loss and accuracy on one split, without training: the trainer's per-epoch
// validation and test numbers, and `repro eval`'s (run/eval_run.h) on a finished run.
#include <torch/torch.h>

#include "data/batcher.h"
#include "data/dataset.h"
#include "models/model.h"
#include "train/precision.h"

namespace repro {

struct SplitMetrics {
  double loss = NAN;  // mean cross-entropy (no label smoothing)
  double acc = NAN;   // accuracy in percent
};

// Over every example of `split` in batches of `batch_size`, under `precision` (bf16 autocast or fp32); one
// host read at the end. NaN for an empty split.
SplitMetrics split_metrics(ClassifierImpl& model, const Split& split, const Batcher& batcher, torch::Device device,
                           int64_t batch_size, Precision precision = Precision::Fp32);

}  // namespace repro
