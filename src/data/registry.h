#pragma once
// The explicit name -> dataset table.
#include <filesystem>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "data/integrity.h"
#include "data/text.h"
#include "spec/grid.h"
#include "spec/options.h"

namespace repro {

struct DatasetEntry {
  const char* name;
  DatasetInfo (*info)();
  // Exactly one is set: images as tensors, or texts before tokenization. `files`
  // holds data.files and data.verify; `data` the other data.* options a loader reads.
  RawData (*read_images)(const std::filesystem::path& data_root, const FileOptions& files, const DataOptions& data);
  RawText (*read_texts)(const std::filesystem::path& data_root, const FileOptions& files, const DataOptions& data);

  bool is_text() const { return read_texts != nullptr; }
  // The official splits as `repro run` reads them (file options from `data`).
  RawData load_images(const std::filesystem::path& data_root, const DataOptions& data) const;
  RawText load_text(const std::filesystem::path& data_root, const DataOptions& data) const;
};

// Every dataset's name and traits, for the spec layer (grid expansion checks names and resolves "auto").
DatasetCatalog dataset_catalog();

// data.files and data.verify.
FileOptions file_options(const DataOptions& data);

const std::vector<DatasetEntry>& dataset_table();
std::vector<std::string> dataset_names();
const DatasetEntry& find_dataset(const std::string& name);

// --data-root, else $REPRO_DATA, else ./datasets.
std::filesystem::path resolve_data_root(const std::string& option);
// Throws, naming where the root came from, when it is not a folder: checked once before anything trains or any
// record is written (a wrong --data-root wrote one failed record per run, issue 48).
void check_data_root(const std::string& option);
// Throws one line listing each of `datasets` of which nothing is under the data root (no folder of its name, no file
// its manifest names, no archive at the root): checked once, with check_data_root, before anything trains. A dataset
// with something there is read as each run loads it; a file still missing then fails that run, naming it.
void check_datasets_present(const std::string& option, const std::vector<std::string>& datasets);

}  // namespace repro
