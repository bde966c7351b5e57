#pragma once
// Per-step training metrics (train.log_every): every N optimizer steps one row, kept in
// the checkpoint with the epoch history and shown as steps.csv by the run layer, so the
// file is rewritten from the checkpoint's rows at every epoch end, interrupt and resume
// (no duplicated or missing steps after a kill, as metrics.csv).
#include <torch/torch.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace repro {

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
// The header and a line a row (empty = NaN; csv_number's digits, wall_time with 16). Repro never reads it back
// (the checkpoint holds the rows); the tests do (tests/fixtures.h: parse_steps_csv).
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
  WindowSums sums() const;                              // a host read: for checkpoints only
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

}  // namespace repro
