#pragma once
// Choosing the device (--device auto|cpu|cuda) and describing the machine.
#include <torch/torch.h>

#include <nlohmann/json.hpp>
#include <string>

#include "run/device_choice.h"

namespace repro {

// Throws repro::Error for cuda when this build or machine has no CUDA device.
torch::Device resolve_device(DeviceChoice choice);
// The memory a run trains in: the GPU's (device 0) when --device picks CUDA and its driver says, else the
// machine's physical memory. `where` names it for messages ("this machine", "the GPU (NVIDIA H100 ...)").
struct MemoryBudget {
  uint64_t bytes = 0;  // 0: unknown (nothing is refused)
  std::string where;
};
MemoryBudget training_memory(DeviceChoice choice);

// Device, threads, BLAS, LibTorch, repro version and commit, host name.
nlohmann::json environment_record(torch::Device device);

}  // namespace repro
