#include "train/schedule.h"

#include <algorithm>
#include <cmath>

namespace repro {

Schedule Schedule::from_options(const ScheduleOptions& options, int64_t epochs, int64_t steps_per_epoch) {
  Schedule s;
  s.options = options;
  s.steps_per_epoch = std::max<int64_t>(1, steps_per_epoch);
  s.total_steps = s.steps_per_epoch * epochs;
  return s;
}

Schedule Schedule::constant(double lr) {
  Schedule s;
  s.options.kind = ScheduleKind::Constant;
  s.options.lr = s.options.min_lr = lr;
  s.options.warmup_steps = 0;
  return s;
}

double Schedule::at(int64_t step) const {
  const double peak = options.lr, floor = options.min_lr;
  const int64_t warmup = options.warmup_steps;
  if (step < warmup) return peak * static_cast<double>(step + 1) / static_cast<double>(warmup);
  if (options.kind == ScheduleKind::Constant) return peak;
  double progress;  // in [0, 1]
  if (options.unit == ScheduleUnit::Epoch) {
    const int64_t epochs = total_steps / steps_per_epoch;
    progress = static_cast<double>(step / steps_per_epoch) / static_cast<double>(std::max<int64_t>(1, epochs));
  } else {
    const int64_t span = std::max<int64_t>(1, total_steps - warmup);
    progress = static_cast<double>(step - warmup) / static_cast<double>(span);
  }
  progress = std::clamp(progress, 0.0, 1.0);
  if (options.kind == ScheduleKind::Linear) return peak + (floor - peak) * progress;
  return floor + (peak - floor) * 0.5 * (1.0 + std::cos(M_PI * progress));  // cosine
}

}  // namespace repro
