#pragma once
// The datasets of one command, shared by the runs it trains in this process (the lanes executor's K runs at once
// included): each dataset's files are read once, each run's splits prepared once per data and text settings
// (split, limited, noised, tokenized: data/loader.h), and on CUDA copied to the device once and kept there for every
// run that reads them (each run draws its own order: data/random.h). Thread-safe: a lane asking for what another is
// preparing waits for it.
#include <torch/torch.h>

#include <filesystem>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "data/dataset.h"
#include "data/loader.h"
#include "spec/options.h"

namespace repro {

class SharedData {
 public:
  // `keep`: how many prepared datasets stay resident (the lanes' count: each lane's current one), the most
  // recently used first.
  SharedData(std::filesystem::path root, torch::Device device, size_t keep);

  // The run's splits, resident on the device.
  std::shared_ptr<const RunData> run_data(const std::string& dataset, const RunOptions& options);

 private:
  std::mutex mutex_;
  DataLoader loader_;
  torch::Device device_;
  size_t keep_;
  std::list<std::pair<std::string, std::shared_ptr<const RunData>>> recent_;  // (dataset | settings, splits)
};

}  // namespace repro
