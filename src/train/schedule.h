#pragma once
// Learning-rate schedules, as pure functions of the step (so resuming needs
// only the step count).
#include <cstdint>
#include <string>

#include "spec/config.h"

namespace repro {

struct Schedule {
  std::string kind = "cosine";  // cosine | linear | constant
  std::string unit = "step";    // step | epoch
  double peak = 3e-4, floor = 0;
  int64_t warmup_steps = 0, steps_per_epoch = 1, total_steps = 1;

  static Schedule from_config(const Config& config, int64_t steps_per_epoch);
  // The learning rate of 0-based optimizer step `step`.
  double at(int64_t step) const;
};

}  // namespace repro
