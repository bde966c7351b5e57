#include "data/loader.h"

#include <spdlog/spdlog.h>

#include "data/prepare.h"
#include "data/prepare_text.h"
#include "data/registry.h"

namespace repro {

namespace {

// The keys a loader reads: files, their checks, and 20 Newsgroups' cleaning.
std::string load_key(const std::string& dataset, const Config& config) {
  return dataset + "|" + config.text("data.files") + "|" + config.text("data.verify") + "|" +
         config.text("data.newsgroups_remove");
}

}  // namespace

RunData DataLoader::run_data(const std::string& dataset, const Config& config) {
  // Runs of a grid that differ only in model or seed share their splits: keep the
  // last ones instead of splitting, adding noise or reading the token cache again.
  const std::string prepared = dataset + "|" + config.section_text({"data.", "text."});
  if (prepared == last_key_) return last_;
  last_ = prepare(dataset, config);
  last_key_ = prepared;
  return last_;
}

RunData DataLoader::prepare(const std::string& dataset, const Config& config) {
  const DatasetEntry& entry = find_dataset(dataset);
  const std::string key = load_key(dataset, config);
  if (entry.is_text()) return prepare_text_run_data(entry.info(), raw_text(dataset, config), config);
  auto it = images_.find(key);
  if (it == images_.end()) {
    spdlog::info("loading {} from {}", dataset, root_.string());
    it = images_.emplace(key, entry.load_images(root_, config)).first;
  }
  return prepare_run_data(entry.info(), it->second, config);
}

const RawText& DataLoader::raw_text(const std::string& dataset, const Config& config) {
  const DatasetEntry& entry = find_dataset(dataset);
  const std::string key = load_key(dataset, config);
  auto it = texts_.find(key);
  if (it == texts_.end()) {
    spdlog::info("loading {} from {}", dataset, root_.string());
    it = texts_.emplace(key, entry.load_text(root_, config)).first;
  }
  return it->second;
}

DatasetInfo DataLoader::model_info(const std::string& dataset, const Config& config) {
  const DatasetEntry& entry = find_dataset(dataset);
  if (!entry.is_text()) return entry.info();
  return run_data(dataset, config).info;
}

}  // namespace repro
