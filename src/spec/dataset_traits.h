#pragma once
// What resolving a key's "auto" needs to know of a dataset (spec/key_binding.h's AutoContext); the data layer
// supplies it (DatasetInfo::traits(), dataset_catalog() in data/registry.h).
#include <string>

namespace repro {

struct DatasetTraits {
  bool text = false;            // text (token ids) rather than images
  std::string default_augment;  // what data.augment=auto means for it ("" = leave auto)
};

}  // namespace repro
