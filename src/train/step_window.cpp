#include "train/step_window.h"

#include <cmath>

#ifdef REPRO_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

namespace repro {

StepWindow::StepWindow(torch::Device device)
    : device_(device),
      loss_sum_(torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat32).device(device))),
      start_(std::chrono::steady_clock::now()) {}

void StepWindow::add(const torch::Tensor& loss, int64_t batch) {
  loss_sum_ += loss.detach().to(torch::kFloat32) * static_cast<double>(batch);
  seen_ += batch;
}

WindowSums StepWindow::sums() const { return {loss_sum_.to(torch::kCPU).clone(), seen_}; }

void StepWindow::restore(const WindowSums& sums) {
  if (sums.loss_sum.defined()) loss_sum_.copy_(sums.loss_sum);
  seen_ = sums.seen;
}

StepRow StepWindow::close(int64_t step, int64_t epoch, double lr, const torch::Tensor& grad_norm) {
  const auto now = std::chrono::steady_clock::now();
  const double seconds = std::chrono::duration<double>(now - start_).count();
  StepRow row;
  row.step = step;
  row.epoch = epoch;
  row.loss = seen_ > 0 ? loss_sum_.item<double>() / static_cast<double>(seen_) : NAN;  // the one host read
  row.lr = lr;
  row.grad_norm = grad_norm.defined() ? grad_norm.item<double>() : NAN;
  row.examples_per_s = seconds > 0 ? static_cast<double>(seen_) / seconds : NAN;
  row.cuda_memory_mb = cuda_memory_mb(device_);
  row.wall_time = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  loss_sum_.zero_();
  seen_ = 0;
  start_ = now;
  return row;
}

double cuda_memory_mb(torch::Device device) {
#ifdef REPRO_CUDA
  if (device.is_cuda()) {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index() < 0 ? 0 : device.index());
    return static_cast<double>(stats.allocated_bytes[0].current) / (1024.0 * 1024.0);  // [0] = all pools
  }
#endif
  (void)device;
  return NAN;
}

}  // namespace repro
