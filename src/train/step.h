#pragma once
// One optimizer step, in this file and step.cpp, in the order nanoGPT's loop reads:
//   lr        the schedule's learning rate of optimizer step s (train/schedule.h: a pure function of s, so that a
//             resume needs s only)
//   forward   under the run's precision (bf16 autocast with float32 master weights, or fp32)
//   loss      cross-entropy with label smoothing, in float32
//   backward
//   clip      the gradients' global L2 norm, kept on the device, and their scaling to train.clip_norm (the eager
//             way: train/optimizer.h)
//   update    AdamW with a decay and a no-decay group (built by train/optimizer.h)
//   log       the steps.csv window (train/step_window.h): a row (record/steps_file.h) every train.log_every steps,
//             the only host read of a GPU step
// and the epoch's sums (StepTotals, train/split_metrics.h). `repro run` (train/trainer.cpp) and `repro bench` run
// this very step.
//
// forward ... update is one body (TrainStep::body) for both updates, chosen per device (UpdateKind); they differ
// only in how the gradients are zeroed and measured and in the update call:
// - Eager (the CPU; LibTorch before 2.4): torch::optim::AdamW (a loop over the parameters), the gradient norm one
//   tensor at a time. CPU records stay bit-identical to those of the step before the fused one (compare-binaries).
// - Fused (CUDA with LibTorch >= 2.4): AdamW as one at::_fused_adamw_ call per group, its learning rate and step
//   counts device tensors; the gradients zeroed, measured and scaled by foreach kernels; the loss, the correct
//   count and the gradient norm written into tensors allocated once. No value is read back and no host number
//   enters the step, so with train.cuda_graphs (auto) the whole of forward ... update is captured as a CUDA graph
//   once per input shape and replayed per batch (train/cuda_graph.h); the learning rate is written into its
//   device tensor before each replay. Equal to Eager within float32 rounding (tests/test_cuda.cpp). The optimizer
//   state lives in a torch::optim::AdamW all the same, so checkpoints are one format for both (before_save,
//   after_load).
//
// K steps in one process (the lanes executor, run/in_process.cpp with --lanes K: K runs on K threads): each
// TrainStep owns a GraphLane (its own CUDA stream, graph memory pool and graphs, captured in CUDA's thread-local
// capture mode) and runs on its run's thread inside `lane_scope()`. Captures are serialised process-wide; replays
// of different lanes may overlap. Every draw of a step (dropout) comes from its run's own generators
// (data/random.h), registered with each graph the lane captures, so K lanes give each run the numbers it has alone.
#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "data/batcher.h"
#include "data/dataset.h"
#include "models/model.h"
#include "spec/options.h"
#include "train/cuda_graph.h"
#include "train/precision.h"
#include "train/schedule.h"
#include "train/split_metrics.h"
#include "train/step_window.h"

namespace repro {

enum class UpdateKind { Eager, Fused };  // see the top of this file
// Whether this build has the fused update (LibTorch >= 2.4).
bool fused_update_built();
// A quarter, a half, three quarters and all of `max_len`, each rounded up to a multiple of 8 (at most max_len),
// ascending without repeats: the lengths text batches are padded to under CUDA graphs.
std::vector<int64_t> length_buckets_for(int64_t max_len);

// What the body of a step computes, () each on the device: the batch's mean loss, its correct count and the
// gradients' norm before clipping (undefined when the eager update did not measure it).
struct StepOutputs {
  torch::Tensor loss, correct, grad_norm;
};

// What one step returns: the batch's mean loss () on the device, and the steps.csv row when one was due.
struct StepResult {
  torch::Tensor loss;
  std::optional<StepRow> row;
};

class TrainStep {
 public:
  // The model on `device`. Reads options' precision (resolved for `device`), clip_norm, label_smoothing,
  // log_every, cuda_graphs and optimizer; builds the optimizer (make_optimizer) at schedule.at(0).
  // `update`: nullopt = the device's (Fused on CUDA with LibTorch >= 2.4, else Eager); the tests force Fused on
  // the CPU of a LibTorch >= 2.4 to compare the two.
  TrainStep(ClassifierImpl& model, const TrainOptions& options, torch::Device device, const Schedule& schedule,
            std::optional<UpdateKind> update = std::nullopt);
  ~TrainStep();
  TrainStep(const TrainStep&) = delete;
  TrainStep& operator=(const TrainStep&) = delete;

  // One optimizer step on the batch (x, labels (B,) int64 on the device): `step` is the 0-based optimizer step
  // (the schedule's position), `epoch` the epoch it belongs to (for its steps.csv row).
  StepResult run(const Batch& x, const torch::Tensor& labels, int64_t step, int64_t epoch, StepTotals& totals);

  // split_metrics (train/split_metrics.h) under this step's precision; with graphs, each evaluation batch shape
  // is captured and replayed as the training step is (text batches padded to length_buckets(), the last batch of
  // each length padded with repeated examples that are not counted).
  SplitMetrics evaluate(const Split& split, const Batcher& batcher, const EvalBatching& batching);

  // The lengths a text batch is padded to (its longest real text's bucket), for make_batcher: empty (trim to the
  // longest, as ever) unless graphs are on; then length_buckets_for(max_len), so that at most four graphs cover
  // an epoch's full batches.
  std::vector<int64_t> length_buckets(int64_t max_len) const;

  // While alive, the device work of this thread runs on the step's own CUDA stream (train/cuda_graph.h). The
  // trainer holds one around a whole run.
  [[nodiscard]] GraphLane::Scope lane_scope() { return lane_.enter(); }

  // Checkpoints save and load optimizer(): call before_save() first (the device step counts into its state)
  // and after_load() after (its state into the tensors the step and its graphs use).
  torch::optim::AdamW& optimizer() { return *optimizer_; }
  void before_save();
  void after_load();

  StepWindow& window() { return window_; }
  const Schedule& schedule() const { return schedule_; }
  Precision precision() const { return precision_; }
  UpdateKind update_kind() const { return update_; }
  bool graphs_enabled() const { return lane_.enabled(); }
  bool graphs_ran() const { return lane_.replays() > 0; }  // a graph replayed in this process
  // () on the device: the last step's gradient norm before clipping; undefined when it was not measured.
  const torch::Tensor& grad_norm() const { return outputs_.grad_norm; }

 private:
  // forward, loss, backward, clip, update: the one body of both updates (step.cpp). With static outputs (Fused) it
  // writes outputs_ in place, so that a graph's replay leaves its results there.
  void body(const Batch& x, const torch::Tensor& labels, bool measure_grad_norm);
  // The three places Eager and Fused differ: zeroing the gradients, their norm (and clipping), the update.
  void zero_gradients();
  torch::Tensor measure_and_clip(bool measure);
  void update();
  void set_learning_rate(double lr);
  // Fused: the batch copied into the static inputs of its shape, then body() on them, as a graph where on.
  void run_on_static_inputs(const Batch& x, const torch::Tensor& labels);
  SplitMetrics evaluate_graphed(const Split& split, const Batcher& batcher, const EvalBatching& batching);

  ClassifierImpl& model_;
  torch::Device device_;
  Precision precision_;
  double clip_norm_, label_smoothing_;
  int64_t log_every_;
  Schedule schedule_;
  std::unique_ptr<torch::optim::AdamW> optimizer_;
  UpdateKind update_;
  std::vector<torch::Tensor> parameters_;  // trainable, in model order
  StepWindow window_;
  StepOutputs outputs_;  // the last step's (Fused: allocated once, written in place)
  struct Fused;          // the fused update's tensors (step.cpp)
  std::unique_ptr<Fused> fused_;
  GraphLane lane_;
};

}  // namespace repro
