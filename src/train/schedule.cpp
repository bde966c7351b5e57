#include "train/schedule.h"

#include <algorithm>
#include <cmath>

namespace repro {

Schedule Schedule::from_config(const Config& config, int64_t steps_per_epoch) {
  Schedule s;
  s.kind = config.text("train.schedule");
  s.unit = config.text("train.schedule_unit");
  s.peak = config.real("train.lr");
  s.floor = config.real("train.min_lr");
  s.warmup_steps = config.integer("train.warmup_steps");
  s.steps_per_epoch = std::max<int64_t>(1, steps_per_epoch);
  s.total_steps = s.steps_per_epoch * config.integer("train.epochs");
  return s;
}

double Schedule::at(int64_t step) const {
  if (step < warmup_steps) return peak * static_cast<double>(step + 1) / static_cast<double>(warmup_steps);
  if (kind == "constant") return peak;
  double progress;  // in [0, 1]
  if (unit == "epoch") {
    const int64_t epochs = total_steps / steps_per_epoch;
    progress = static_cast<double>(step / steps_per_epoch) / static_cast<double>(std::max<int64_t>(1, epochs));
  } else {
    const int64_t span = std::max<int64_t>(1, total_steps - warmup_steps);
    progress = static_cast<double>(step - warmup_steps) / static_cast<double>(span);
  }
  progress = std::clamp(progress, 0.0, 1.0);
  if (kind == "linear") return peak + (floor - peak) * progress;
  return floor + (peak - floor) * 0.5 * (1.0 + std::cos(M_PI * progress));  // cosine
}

}  // namespace repro
