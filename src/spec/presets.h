#pragma once
// Named models of the papers (ViT, DGViT, Transformer, DIFF Transformer, DGT)
// and the resolution of "auto" settings, both applied when a grid is expanded:
// the one place where "auto" values become concrete ones.
#include <string>
#include <utility>
#include <vector>

#include "spec/config.h"

namespace repro {

// What resolving "auto" needs to know of a dataset; the data layer supplies it
// (DatasetInfo::traits(), dataset_catalog() in data/registry.h).
struct DatasetTraits {
  bool text = false;            // text (token ids) rather than images
  std::string default_augment;  // what data.augment=auto means for it ("" = leave auto)
};

struct Preset {
  const char* name;
  const char* description;
  std::vector<std::pair<const char*, const char*>> values;  // key -> value
};

const std::vector<Preset>& preset_table();

// Fills the preset's values into keys the user did not set, then replaces every
// "auto" (pool, the attention variant's own, augment) by its concrete value.
void resolve_settings(Config& config, const DatasetTraits& dataset);

}  // namespace repro
