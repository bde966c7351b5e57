#pragma once
// --device's value, without LibTorch (run/device.h resolves it to a torch::Device).
#include "spec/options.h"

namespace repro {

enum class DeviceChoice { Auto, Cpu, Cuda };  // auto = CUDA device 0 when there is one, else the CPU
const EnumNames<DeviceChoice>& enum_names(DeviceChoice);

}  // namespace repro
