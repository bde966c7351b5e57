#pragma once
// End-of-epoch checkpoints: model, optimizer, step counters and the metric
// history, written atomically (temporary file, then rename).
#include <torch/torch.h>

#include <filesystem>
#include <string>

namespace repro {

struct TrainState {
  int64_t epochs_done = 0;
  int64_t step = 0;          // optimizer steps taken
  double wall_seconds = 0;   // summed over interrupted sessions
  std::string history_json;  // the per-epoch metric rows so far
};

void save_checkpoint(const std::filesystem::path& path, torch::nn::Module& model, torch::optim::Optimizer& optimizer,
                     const TrainState& state);
// Restores model, optimizer and state; throws naming the file when it is unreadable.
TrainState load_checkpoint(const std::filesystem::path& path, torch::nn::Module& model,
                           torch::optim::Optimizer& optimizer);

}  // namespace repro
