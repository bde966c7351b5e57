#pragma once
// Choosing the device (--device auto|cpu|cuda) and describing the machine.
#include <torch/torch.h>

#include <nlohmann/json.hpp>
#include <string>

#include "run/device_choice.h"

namespace repro {

// Throws repro::Error for cuda when this build or machine has no CUDA device.
torch::Device resolve_device(DeviceChoice choice);
// Device, threads, BLAS, LibTorch, repro version and commit, host name.
nlohmann::json environment_record(torch::Device device);

}  // namespace repro
