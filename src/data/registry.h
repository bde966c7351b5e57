#pragma once
// The explicit name -> dataset table.
#include <filesystem>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "data/integrity.h"
#include "data/text.h"
#include "spec/config.h"
#include "spec/grid.h"

namespace repro {

struct DatasetEntry {
  const char* name;
  DatasetInfo (*info)();
  // Exactly one is set: images as tensors, or texts before tokenization. `files`
  // holds data.files and data.verify; `config` the other data.* keys a loader reads.
  RawData (*read_images)(const std::filesystem::path& data_root, const FileOptions& files, const Config& config);
  RawText (*read_texts)(const std::filesystem::path& data_root, const FileOptions& files, const Config& config);

  bool is_text() const { return read_texts != nullptr; }
  // The official splits as `repro run` reads them (files options from `config`).
  RawData load_images(const std::filesystem::path& data_root, const Config& config) const;
  RawText load_text(const std::filesystem::path& data_root, const Config& config) const;
};

// Every dataset's name and traits, for the spec layer (grid expansion checks names and resolves "auto").
DatasetCatalog dataset_catalog();

// data.files and data.verify of `config`.
FileOptions file_options(const Config& config);

const std::vector<DatasetEntry>& dataset_table();
std::vector<std::string> dataset_names();
const DatasetEntry& find_dataset(const std::string& name);

// --data-root, else $REPRO_DATA, else ./datasets.
std::filesystem::path resolve_data_root(const std::string& option);

}  // namespace repro
