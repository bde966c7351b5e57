#include "train/schedule.h"

#include <algorithm>
#include <cmath>

namespace repro {

Schedule Schedule::from_options(const ScheduleOptions& options, int64_t epochs, int64_t steps_per_epoch) {
  Schedule s;
  s.kind = options.kind;
  s.unit = options.unit;
  s.peak = options.lr;
  s.floor = options.min_lr;
  s.warmup_steps = options.warmup_steps;
  s.steps_per_epoch = std::max<int64_t>(1, steps_per_epoch);
  s.total_steps = s.steps_per_epoch * epochs;
  return s;
}

double Schedule::at(int64_t step) const {
  if (step < warmup_steps) return peak * static_cast<double>(step + 1) / static_cast<double>(warmup_steps);
  if (kind == ScheduleKind::Constant) return peak;
  double progress;  // in [0, 1]
  if (unit == ScheduleUnit::Epoch) {
    const int64_t epochs = total_steps / steps_per_epoch;
    progress = static_cast<double>(step / steps_per_epoch) / static_cast<double>(std::max<int64_t>(1, epochs));
  } else {
    const int64_t span = std::max<int64_t>(1, total_steps - warmup_steps);
    progress = static_cast<double>(step - warmup_steps) / static_cast<double>(span);
  }
  progress = std::clamp(progress, 0.0, 1.0);
  if (kind == ScheduleKind::Linear) return peak + (floor - peak) * progress;
  return floor + (peak - floor) * 0.5 * (1.0 + std::cos(M_PI * progress));  // cosine
}

}  // namespace repro
