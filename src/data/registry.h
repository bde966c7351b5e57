#pragma once
// The explicit name -> dataset table.
#include <filesystem>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "data/text.h"
#include "spec/config.h"

namespace repro {

struct DatasetEntry {
  const char* name;
  DatasetInfo (*info)();
  // Exactly one is set: images as tensors, or texts before tokenization. Both
  // read the data.* keys that concern files (data.files renames files by role).
  RawData (*load_images)(const std::filesystem::path& data_root, const Config& config);
  RawText (*load_text)(const std::filesystem::path& data_root, const Config& config);
};

const std::vector<DatasetEntry>& dataset_table();
std::vector<std::string> dataset_names();
const DatasetEntry& find_dataset(const std::string& name);

// --data-root, else $REPRO_DATA, else ./datasets.
std::filesystem::path resolve_data_root(const std::string& option);

}  // namespace repro
