#include "run/shared_data.h"

#include <algorithm>

#include "data/batcher.h"

namespace repro {

SharedData::SharedData(std::filesystem::path root, torch::Device device, size_t keep)
    : loader_(std::move(root)), device_(device), keep_(std::max<size_t>(1, keep)) {}

std::shared_ptr<const RunData> SharedData::run_data(const std::string& dataset, const RunOptions& options) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string key = dataset + "|" + options.data.settings_text;
  const auto found =
      std::find_if(recent_.begin(), recent_.end(), [&](const auto& entry) { return entry.first == key; });
  if (found != recent_.end()) {
    recent_.splice(recent_.begin(), recent_, found);  // most recently used first
    return recent_.front().second;
  }
  auto data = std::make_shared<const RunData>(resident_data(loader_.run_data(dataset, options), device_));
  recent_.emplace_front(key, data);
  if (recent_.size() > keep_) recent_.pop_back();  // a lane still training on it keeps its own reference
  return data;
}

}  // namespace repro
