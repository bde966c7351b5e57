#pragma once
// The explicit name -> dataset table.
#include <filesystem>
#include <string>
#include <vector>

#include "data/dataset.h"

namespace repro {

struct DatasetEntry {
  const char* name;
  DatasetInfo (*info)();
  // data.files renames files by role ("role=name,..."; see datasets/<name>.yaml).
  RawData (*load)(const std::filesystem::path& data_root, const std::string& file_overrides);
};

const std::vector<DatasetEntry>& dataset_table();
std::vector<std::string> dataset_names();
const DatasetEntry& find_dataset(const std::string& name);

// --data-root, else $REPRO_DATA, else ./datasets.
std::filesystem::path resolve_data_root(const std::string& option);

}  // namespace repro
