#pragma once
// LibTorch's autocast state, one API over its two spellings: 1.13 (set_enabled / set_cpu_enabled,
// one dtype setter per device) and 2.4+ (set_autocast_enabled(device_type, on),
// set_autocast_dtype(device_type, dtype)). train/precision.h's AutocastScope sets it; models/cpu_ops
// reads it (its split CPU products bypass autocast, so they step aside while it is on).
#include <torch/torch.h>

namespace repro {

bool autocast_enabled(torch::DeviceType type);
void set_autocast(torch::DeviceType type, bool on);
at::ScalarType autocast_dtype(torch::DeviceType type);
void set_autocast_dtype(torch::DeviceType type, at::ScalarType dtype);

}  // namespace repro
