#pragma once
#include "models/attention/attention.h"
#include "models/attention/diff_core.h"

namespace repro {

// diff's settings: the differential layout's keys (diff_core.h), its lambda_init by depth unless set.
struct DiffOptions {
  DiffLayoutOptions layout{0, LambdaSchedule::Depth};  // auto lambda_schedule = depth
};

const AttentionEntry& diff_attention();

}  // namespace repro
