#include "data/loader.h"

#include <spdlog/spdlog.h>

#include "data/prepare.h"
#include "data/prepare_text.h"
#include "data/registry.h"

namespace repro {

namespace {

// What a loader reads: files, their checks, and 20 Newsgroups' cleaning.
std::string load_key(const std::string& dataset, const DataOptions& data) {
  return dataset + "|" + data.files + "|" + name_of(data.verify) + "|" + name_of(data.newsgroups_remove);
}

}  // namespace

RunData DataLoader::run_data(const std::string& dataset, const RunOptions& options) {
  // Runs of a grid that differ only in model or seed share their splits: keep the
  // last ones instead of splitting, adding noise or reading the token cache again.
  const std::string prepared = dataset + "|" + options.data.settings_text;
  if (prepared == last_key_) return last_;
  last_ = prepare(dataset, options);
  last_key_ = prepared;
  return last_;
}

RunData DataLoader::prepare(const std::string& dataset, const RunOptions& options) {
  const DatasetEntry& entry = find_dataset(dataset);
  if (entry.is_text())
    return prepare_text_run_data(entry.info(), raw_text(dataset, options.data), options.data, options.text);
  const std::string key = load_key(dataset, options.data);
  auto it = images_.find(key);
  if (it == images_.end()) {
    spdlog::info("loading {} from {}", dataset, root_.string());
    it = images_.emplace(key, entry.load_images(root_, options.data)).first;
  }
  return prepare_run_data(entry.info(), it->second, options.data);
}

const RawText& DataLoader::raw_text(const std::string& dataset, const DataOptions& data) {
  const DatasetEntry& entry = find_dataset(dataset);
  const std::string key = load_key(dataset, data);
  auto it = texts_.find(key);
  if (it == texts_.end()) {
    spdlog::info("loading {} from {}", dataset, root_.string());
    it = texts_.emplace(key, entry.load_text(root_, data)).first;
  }
  return it->second;
}

DatasetInfo DataLoader::model_info(const std::string& dataset, const RunOptions& options) {
  const DatasetEntry& entry = find_dataset(dataset);
  if (!entry.is_text()) return entry.info();
  return run_data(dataset, options).info;
}

}  // namespace repro
