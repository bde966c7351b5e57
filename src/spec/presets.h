#pragma once
// Named models of the papers (ViT, DGViT, Transformer, DIFF Transformer, DGT)
// and the resolution of "auto" settings, both applied when a grid is expanded:
// the one place where "auto" values become concrete ones.
#include <string>
#include <utility>
#include <vector>

#include "spec/config.h"
#include "spec/dataset_traits.h"

namespace repro {

struct Preset {
  const char* name;
  const char* description;
  std::vector<std::pair<const char*, const char*>> values;  // key -> value
};

const std::vector<Preset>& preset_table();

// Fills the preset's values into keys the user did not set, then replaces every "auto" by what its key's
// binding resolves it to (spec/key_binding.h: auto_by_dataset, auto_key, on_off_by_modality), in the key
// table's order: the run's keys and the chosen attention variant's (another variant's keys stay as they are).
void resolve_settings(Config& config, const DatasetTraits& dataset);

}  // namespace repro
