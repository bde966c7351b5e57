#pragma once
// Learning-rate schedules, as pure functions of the step (so resuming needs
// only the step count).
#include <cstdint>

#include "spec/options.h"

namespace repro {

struct Schedule {
  ScheduleKind kind = ScheduleKind::Cosine;
  ScheduleUnit unit = ScheduleUnit::Step;
  double peak = 3e-4, floor = 0;  // train.lr, train.min_lr
  int64_t warmup_steps = 0, steps_per_epoch = 1, total_steps = 1;

  static Schedule from_options(const ScheduleOptions& options, int64_t epochs, int64_t steps_per_epoch);
  // The learning rate of 0-based optimizer step `step`: peak * (step + 1) / warmup_steps
  // during warmup (the first step runs at peak / warmup_steps, not at 0), then the decay.
  double at(int64_t step) const;
};

}  // namespace repro
