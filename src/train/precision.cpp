#include "train/precision.h"

#include <ATen/autocast_mode.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "models/autocast.h"
#include "util/error.h"

namespace repro {


Precision resolve_precision(PrecisionChoice choice, torch::Device device) {
  switch (choice) {
    case PrecisionChoice::Fp32:
      return Precision::Fp32;
    case PrecisionChoice::Bf16:
      return Precision::Bf16;
    case PrecisionChoice::Auto:
      break;
  }
  return device.is_cuda() ? Precision::Bf16 : Precision::Fp32;
}

double cpu_bf16_slowdown() {
  torch::NoGradGuard no_grad;
  const auto time_of = [](torch::ScalarType dtype) {
    const auto a = torch::randn({256, 768}).to(dtype), b = torch::randn({768, 768}).to(dtype);
    double best = 1e30;
    for (int trial = 0; trial < 5; ++trial) {
      const auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < 4; ++i) (void)torch::matmul(a, b);
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
  };
  (void)time_of(torch::kBFloat16);  // first-call costs
  return time_of(torch::kBFloat16) / time_of(torch::kFloat32);
}

void warn_if_cpu_bf16_slower(PrecisionChoice choice, torch::Device device, std::set<std::string>& said) {
  if (choice != PrecisionChoice::Bf16 || !device.is_cpu() || !said.insert("cpu bf16 slowdown").second) return;
  const double slowdown = cpu_bf16_slowdown();
  if (slowdown > 1.0)
    spdlog::warn("train.precision=bf16 on this CPU: a bf16 matrix product takes {:.1f}x as long as float32 here "
                 "(measured now); training will be slower, not faster (auto and fp32 use float32 on CPUs; "
                 "`repro bench SPEC train.precision=bf16` times a whole step)",
                 slowdown);
}

std::string precision_name(Precision precision) { return precision == Precision::Bf16 ? "bf16" : "fp32"; }

void allow_tf32(torch::Device device) {
  if (!device.is_cuda()) return;
  at::globalContext().setAllowTF32CuBLAS(true);
  at::globalContext().setAllowTF32CuDNN(true);
}

AutocastScope::AutocastScope(torch::Device device, Precision precision) : type_(device.type()) {
  if (precision != Precision::Bf16) return;
  if (type_ != torch::kCUDA && type_ != torch::kCPU)
    throw Error("train.precision=bf16: autocast is wrapped for CPU and CUDA only, not " + device.str());
  active_ = true;
  was_enabled_ = autocast_enabled(type_);
  previous_dtype_ = autocast_dtype(type_);
  set_autocast_dtype(type_, at::kBFloat16);
  set_autocast(type_, true);
  at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
  if (!active_) return;
  // Leaving the outermost scope drops the cache of bf16 weight copies.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  set_autocast(type_, was_enabled_);
  set_autocast_dtype(type_, previous_dtype_);
}

}  // namespace repro
