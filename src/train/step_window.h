#pragma once
// The step's log phase (train/step.h): the steps since the last steps.csv row, summed on the device, and the row
// (record/steps_file.h) made from them every train.log_every steps, the only host read of a GPU step. A checkpoint
// keeps the partial sums (WindowSums) with the rows, so that a resumed run's rows hold the same losses as an
// undisturbed run's.
#include <torch/torch.h>

#include <chrono>
#include <cstdint>

#include "record/steps_file.h"

namespace repro {

// The partial sums of the steps since the last row, as a checkpoint keeps them.
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
  // The row for `step` (the window's last step); resets the window. grad_norm: () on the device, or undefined.
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
