#pragma once
// Mixed precision: the precision a run uses, and a scope that turns bf16 autocast on
// (models/autocast.h wraps LibTorch's two autocast APIs).
#include <torch/torch.h>

#include <set>
#include <string>

#include "spec/options.h"

namespace repro {

enum class Precision { Fp32, Bf16 };

// train.precision resolved for a device: auto -> bf16 on CUDA, fp32 on CPU.
Precision resolve_precision(PrecisionChoice choice, torch::Device device);
std::string precision_name(Precision precision);

// How many times longer a bf16 matrix product takes than a float32 one on this CPU (256 x 768 x 768, the shape
// of a paper-size text model's projections; best of several, about 50 ms). Above 1: bf16 is slower here (CPUs
// without native bf16 arithmetic, e.g. without AVX512-BF16/AMX, convert in software).
double cpu_bf16_slowdown();
// The warning for train.precision=bf16 on the CPU when cpu_bf16_slowdown() > 1, measured and said once per command:
// `said` holds what the command has shown already.
void warn_if_cpu_bf16_slower(PrecisionChoice choice, torch::Device device, std::set<std::string>& said);

// TF32 for float32 matrix products and convolutions on CUDA (no-op elsewhere).
void allow_tf32(torch::Device device);

// While alive: ops on `device` run under bf16 autocast (matrix products in bf16,
// reductions and softmax in float32; parameters stay float32). Does nothing for fp32.
class AutocastScope {
 public:
  AutocastScope(torch::Device device, Precision precision);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool active_ = false;
  bool was_enabled_ = false;
  torch::DeviceType type_;
  at::ScalarType previous_dtype_ = at::kFloat;
};

}  // namespace repro
