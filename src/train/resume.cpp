#include "train/resume.h"

namespace repro {

namespace {

// The generator of `device`'s random draws (the CPU's, or the current CUDA device's).
at::Generator default_generator(torch::Device device) {
  return device.is_cuda() ? at::globalContext().defaultGenerator(device) : at::detail::getDefaultCPUGenerator();
}

torch::Tensor generator_state(at::Generator generator) {
  std::lock_guard<std::mutex> lock(generator.mutex());
  return generator.get_state();
}

void set_generator_state(at::Generator generator, const torch::Tensor& state) {
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(state);
}

}  // namespace

void seed_epoch(int64_t seed, int64_t epoch) {
  torch::manual_seed(static_cast<uint64_t>(seed) * 1000003ull + static_cast<uint64_t>(epoch));
}

EpochStart resume_point(const MidEpoch& mid, StepTotals& totals, torch::Device device) {
  totals.loss_sum = mid.loss_sum.to(device);
  totals.correct = mid.correct.to(device);
  totals.seen = mid.seen;
  return EpochStart{mid.batches, mid.seconds, mid.cpu_rng, mid.cuda_rng};
}

void restore_generators(const EpochStart& start, torch::Device device) {
  if (start.cpu_rng.defined()) set_generator_state(at::detail::getDefaultCPUGenerator(), start.cpu_rng);
  if (start.cuda_rng.defined() && device.is_cuda()) set_generator_state(default_generator(device), start.cuda_rng);
}

MidEpoch mid_epoch_state(int64_t batches, const StepTotals& totals, double seconds, torch::Device device) {
  MidEpoch mid;
  mid.batches = batches;
  mid.seconds = seconds;
  mid.loss_sum = totals.loss_sum.cpu();
  mid.correct = totals.correct.cpu();
  mid.seen = totals.seen;
  mid.cpu_rng = generator_state(at::detail::getDefaultCPUGenerator());
  if (device.is_cuda()) mid.cuda_rng = generator_state(default_generator(device)).cpu();
  return mid;
}

}  // namespace repro
