#pragma once
// Named models of the papers (ViT, DGViT, Transformer, DIFF Transformer, DGT)
// and the resolution of "auto" settings, both applied when a grid is expanded.
#include <string>
#include <utility>
#include <vector>

#include "data/dataset.h"
#include "spec/config.h"

namespace repro {

struct Preset {
  const char* name;
  const char* description;
  std::vector<std::pair<const char*, const char*>> values;  // key -> value
};

const std::vector<Preset>& preset_table();

// Fills the preset's values into keys the user did not set, then replaces every
// "auto" (pool, q_residual, lambda_schedule, augment) by its concrete value.
void resolve_settings(Config& config, const DatasetInfo& dataset);

}  // namespace repro
