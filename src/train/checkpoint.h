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

// Serialises `archive` in memory, then writes it with write_file_atomic, so a
// full disk is a repro::Error naming `path` instead of LibTorch's abort.
void save_archive_atomic(torch::serialize::OutputArchive& archive, const std::filesystem::path& path);

// Writes model, optimizer and state to `path` atomically; throws repro::Error naming it.
void save_checkpoint(const std::filesystem::path& path, torch::nn::Module& model, torch::optim::Optimizer& optimizer,
                     const TrainState& state);
// Restores model, optimizer and state; throws naming the file when it is unreadable
// (including a history that does not hold epochs 1..epochs_done).
TrainState load_checkpoint(const std::filesystem::path& path, torch::nn::Module& model,
                           torch::optim::Optimizer& optimizer);

}  // namespace repro
