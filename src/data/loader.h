#pragma once
// Loads datasets once per plan and hands each run the splits it uses.
#include <filesystem>
#include <map>
#include <string>

#include "data/dataset.h"
#include "data/text.h"
#include "spec/options.h"

namespace repro {

class DataLoader {
 public:
  explicit DataLoader(std::filesystem::path data_root) : root_(std::move(data_root)) {}

  // The official splits are read once per dataset and file options; limits,
  // validation split and (for text) tokenization follow the run's data and text options.
  RunData run_data(const std::string& dataset, const RunOptions& options);

  // What the model needs to know (shapes, classes, vocabulary size): for images
  // without reading any file; for text the vocabulary needs the tokenized data.
  DatasetInfo model_info(const std::string& dataset, const RunOptions& options);

  // A text dataset's official splits as read (and cleaned) for `data`; read once.
  const RawText& raw_text(const std::string& dataset, const DataOptions& data);

 private:
  RunData prepare(const std::string& dataset, const RunOptions& options);

  std::filesystem::path root_;
  std::string last_key_;  // the splits of the last run, reused by the next when they match
  RunData last_;
  std::map<std::string, RawData> images_;
  std::map<std::string, RawText> texts_;
};

}  // namespace repro
