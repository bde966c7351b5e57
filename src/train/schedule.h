#pragma once
// The learning-rate schedule: the step's first phase (train/step.h). A pure function of the 0-based optimizer step,
// so that a resume needs the step count only.
#include <cstdint>

#include "spec/options.h"

namespace repro {

struct Schedule {
  ScheduleOptions options;  // the spec's: kind, unit, train.lr (the peak), train.min_lr (the floor), warmup_steps
  int64_t steps_per_epoch = 1, total_steps = 1;

  static Schedule from_options(const ScheduleOptions& options, int64_t epochs, int64_t steps_per_epoch);
  static Schedule constant(double lr);  // `repro bench`'s
  // The learning rate of 0-based optimizer step `step`: lr * (step + 1) / warmup_steps during warmup (the first
  // step runs at lr / warmup_steps, not at 0), then the decay to min_lr.
  double at(int64_t step) const;
};

}  // namespace repro
