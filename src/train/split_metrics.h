#pragma once
// A model's loss and accuracy on one split, without training: the trainer's per-epoch
// validation and test numbers, and `repro eval`'s (run/eval_run.h) on a finished run.
#include <torch/torch.h>

#include <vector>

#include "data/batcher.h"
#include "data/dataset.h"
#include "models/model.h"
#include "train/precision.h"

namespace repro {

struct SplitMetrics {
  double loss = NAN;  // mean cross-entropy (no label smoothing)
  double acc = NAN;   // accuracy in percent
};

// Running sums of a split's loss and correct count, on the run's device: an epoch's training batches (TrainStep::run
// adds each step's; the trainer's train_loss and train_acc), an evaluation's batches.
struct StepTotals {
  torch::Tensor loss_sum;  // () float32: sum over examples of the loss
  torch::Tensor correct;   // () int64
  int64_t seen = 0;
  StepTotals(torch::Device device);
  // A batch's mean loss () and correct count (), on the device.
  void add_counts(const torch::Tensor& mean_loss, const torch::Tensor& correct_count, int64_t batch);
};

// How evaluation batches are cut (train.eval_batch_size, train.eval_tokens).
struct EvalBatching {
  int64_t max_examples = 512;  // examples per batch
  int64_t max_tokens = 0;      // text: tokens per batch, padded to its longest (0 = no limit)
};

// The batches of `split` as CPU int64 positions. Text: the examples in order of length (stable), each batch
// as many as fit both limits, so that a batch is padded little and stays within a memory and cache budget.
// Images: in order, max_examples each.
std::vector<torch::Tensor> eval_batches(const Split& split, const EvalBatching& batching);

// Evaluation batches of fixed shapes, for CUDA graphs (train/step.h): text with `length_buckets` (ascending),
// the examples of each bucket (real length above the bucket before, up to this one) in order of length, cut
// into batches of max(1, min(max_examples, max_tokens / bucket)) (max_examples without a token budget);
// images or text without buckets, in order, max_examples each. The last batch of each bucket is filled up to
// the full size by repeating its first example: `count` says how many of its rows are its own.
struct PaddedBatch {
  torch::Tensor indices;  // (rows,) int64 on the CPU
  int64_t count = 0;      // the first `count` rows are the batch's examples, the rest repeat its first
};
std::vector<PaddedBatch> padded_eval_batches(const Split& split, const EvalBatching& batching,
                                             const std::vector<int64_t>& length_buckets);

// The sums of one evaluation batch, () each on the device: the loss summed over its counted rows and how many of
// them the model gets right. `counted` (B,) bool marks a padded batch's own rows (CUDA graphs: train/step.h);
// undefined: every row, the loss summed as the batch's mean times its size (the sums of repro's evaluation since
// 0.1, kept bit for bit). split_metrics and TrainStep::evaluate's graphs both evaluate through it.
struct EvalSums {
  torch::Tensor loss_sum, correct;
};
EvalSums eval_batch_sums(ClassifierImpl& model, const Batch& x, const torch::Tensor& labels,
                         const torch::Tensor& counted, torch::Device device, Precision precision);

// Over every example of `split` in eval_batches(), under `precision` (bf16 autocast or fp32); one host read
// at the end. The sums do not depend on the order of the examples but for float rounding. NaN for an
// empty split.
SplitMetrics split_metrics(ClassifierImpl& model, const Split& split, const Batcher& batcher, torch::Device device,
                           const EvalBatching& batching, Precision precision = Precision::Fp32);

}  // namespace repro
