#pragma once
// Choosing the device (--device auto|cpu|cuda) and describing the machine.
#include <torch/torch.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "record/run_record.h"
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

// The GPU's identity (name, NVIDIA driver, CUDA runtime, compute capability); every field null off CUDA. The
// precision and the CUDA graphs are the run's (run/summary.cpp sets them).
DeviceIdentity device_identity(torch::Device device);
// The version in the first line of /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX x86_64 Kernel Module
// 580.159.04  Sun ..." -> "580.159.04"); nullopt when it holds none.
std::optional<std::string> parse_nvidia_driver_version(const std::string& line);
// Device, threads, BLAS, LibTorch, repro version and commit, host name, and device_identity()'s fields; `lanes`:
// how many runs this process trained at once (--lanes), which a run's wall time depends on.
nlohmann::json environment_record(torch::Device device, int lanes = 1);

}  // namespace repro
