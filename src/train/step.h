#pragma once
// One optimizer step, the whole of it in this file and step.cpp, in the order nanoGPT's loop reads:
//   lr        the schedule's learning rate of optimizer step s (Schedule: a pure function of s, so that a resume
//             needs s only)
//   forward   under the run's precision (bf16 autocast with float32 master weights, or fp32)
//   loss      cross-entropy with label smoothing, in float32
//   backward
//   clip      the gradients' global L2 norm, kept on the device, and their scaling to train.clip_norm
//   update    AdamW with a decay and a no-decay group
//   log       the steps.csv window: a row every train.log_every steps, the only host read of a GPU step
// `repro run` (train/trainer.cpp) and `repro bench` run this very step.
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

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "data/batcher.h"
#include "data/dataset.h"
#include "models/model.h"
#include "spec/options.h"
#include "train/cuda_graph.h"
#include "train/precision.h"
#include "train/split_metrics.h"

namespace repro {

// ---- lr: the learning-rate schedule

struct Schedule {
  ScheduleOptions options;  // the spec's: kind, unit, train.lr (the peak), train.min_lr (the floor), warmup_steps
  int64_t steps_per_epoch = 1, total_steps = 1;

  static Schedule from_options(const ScheduleOptions& options, int64_t epochs, int64_t steps_per_epoch);
  static Schedule constant(double lr);  // `repro bench`'s
  // The learning rate of 0-based optimizer step `step`: lr * (step + 1) / warmup_steps during warmup (the first
  // step runs at lr / warmup_steps, not at 0), then the decay to min_lr.
  double at(int64_t step) const;
};

// ---- update: the optimizer

// AdamW with two parameter groups: with and without weight decay (train.no_decay: models/model.h's
// decayed_parameters()). `lr` is the first step's; TrainStep sets each step's.
std::unique_ptr<torch::optim::AdamW> make_optimizer(ClassifierImpl& model, const OptimizerOptions& options, double lr);
void set_learning_rate(torch::optim::Optimizer& optimizer, double lr);

// ---- log: steps.csv (train.log_every)
// Every N optimizer steps one row, kept in the checkpoint with the epoch history and shown as steps.csv by the
// run layer, so the file is rewritten from the checkpoint's rows at every epoch end, interrupt and resume (no
// duplicated or missing steps after a kill, as metrics.csv).

// One row of steps.csv: the window of steps (step - N, step].
struct StepRow {
  int64_t step = 0;             // optimizer steps so far (1-based count of the window's last step)
  int64_t epoch = 0;            // the epoch the step belongs to
  double loss = 0;              // mean training loss over the window's examples
  double lr = 0;                // the learning rate of the window's last step
  double grad_norm = 0;         // global L2 norm of the last step's gradients, before clipping
  double examples_per_s = 0;    // training examples over the window's wall time (a resumed window: since the resume)
  double cuda_memory_mb = NAN;  // allocated CUDA memory at the window's end; NaN on the CPU
  double wall_time = 0;         // Unix time of the window's end (seconds)
};

nlohmann::json steps_to_json(const std::vector<StepRow>& rows);
std::vector<StepRow> steps_from_json(const nlohmann::json& json);
const char* steps_csv_header();  // "step,epoch,loss,lr,grad_norm,examples_per_s,cuda_memory_mb,wall_time"
// The header and a line a row (empty = NaN; csv_number's digits, wall_time with 16). A resume takes the rows from
// the checkpoint; `repro status` and an event file's rewrite read the file back (run/steps_file.h).
std::string steps_csv(const std::vector<StepRow>& rows);

// The partial sums of the steps since the last row, as a checkpoint keeps them (so that a resumed run's rows
// hold the same losses as an undisturbed run's).
struct WindowSums {
  torch::Tensor loss_sum;  // () float32 on the CPU; undefined = empty
  int64_t seen = 0;
};

// The steps since the last row, summed on the device (no host read until a row is due).
class StepWindow {
 public:
  explicit StepWindow(torch::Device device);
  void add(const torch::Tensor& loss, int64_t batch);  // loss: () on the device, the batch's mean
  WindowSums sums() const;                             // a host read: for checkpoints only
  void restore(const WindowSums& sums);
  // The row for `step` (the window's last step); resets the window.
  StepRow close(int64_t step, int64_t epoch, double lr, const torch::Tensor& grad_norm);

 private:
  torch::Device device_;
  torch::Tensor loss_sum_;  // () float32
  int64_t seen_ = 0;
  std::chrono::steady_clock::time_point start_;
};

// Allocated CUDA memory on `device` in MiB; NaN for the CPU (or a build without CUDA).
double cuda_memory_mb(torch::Device device);

// ---- the epoch's sums

// Running sums over an epoch, on the run's device.
struct StepTotals {
  torch::Tensor loss_sum;  // () float32: sum over examples of the loss
  torch::Tensor correct;   // () int64
  int64_t seen = 0;
  StepTotals(torch::Device device);
  // A batch's mean loss () and correct count (), on the device.
  void add_counts(const torch::Tensor& mean_loss, const torch::Tensor& correct_count, int64_t batch);
};

// ---- the step

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

// The global L2 norm of the parameters' gradients, (), without a host read.
torch::Tensor gradient_norm(const std::vector<torch::Tensor>& parameters);

// Scales gradients so that their global L2 norm is at most `max_norm`, without
// reading the norm on the host (LibTorch's clip_grad_norm_ returns it as a double,
// which would synchronise a GPU every step). Returns the norm before clipping, ().
torch::Tensor clip_gradients(const std::vector<torch::Tensor>& parameters, double max_norm);

// Forward of an evaluation batch under the precision; logits as float32 (B, classes).
torch::Tensor predict(ClassifierImpl& model, const Batch& x, torch::Device device, Precision precision);

}  // namespace repro
