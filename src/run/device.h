#pragma once
// Choosing the device (--device auto|cpu|cuda) and describing the machine.
#include <torch/torch.h>

#include <nlohmann/json.hpp>
#include <string>

namespace repro {

torch::Device resolve_device(const std::string& choice);
// Device, threads, BLAS, LibTorch, repro version and commit, host name.
nlohmann::json environment_record(torch::Device device);

}  // namespace repro
