#pragma once
// Checkpoints: model, optimizer, step counters and the metric history, written
// atomically (temporary file, then rename), at every epoch end and, when a run is
// interrupted, mid-epoch with what the rest of the epoch needs to replay exactly.
// Checkpoints without the mid-epoch fields (older repro, epoch ends) load as epoch ends.
#include <torch/torch.h>

#include <filesystem>
#include <string>

#include "train/step_window.h"

namespace repro {

// Where an interrupted epoch (epochs_done + 1) stopped: after `batches` batches of
// its order, with its partial totals and the random generators' states after the
// last trained batch (the epoch's order is redrawn from its seed on resume).
struct MidEpoch {
  int64_t batches = 0;
  double seconds = 0;      // wall time spent in the epoch so far
  torch::Tensor loss_sum;  // () float32, on the CPU
  torch::Tensor correct;   // () int64, on the CPU
  int64_t seen = 0;
  torch::Tensor cpu_rng;  // the run's CPU generator's state (uint8; data/random.h; the default generator's up to 0.7.2,
                          // the same format and sequence)
  torch::Tensor cuda_rng;  // the run's CUDA generator's, undefined when training on the CPU
};

struct TrainState {
  int64_t epochs_done = 0;
  int64_t step = 0;               // optimizer steps taken
  double wall_seconds = 0;        // summed over interrupted sessions
  std::string history_json;       // the per-epoch metric rows so far
  std::string steps_json = "[]";  // the steps.csv rows so far (record/steps_file.h)
  WindowSums steps_window;        // the steps since the last of them
  MidEpoch mid_epoch;             // batches == 0 for an end-of-epoch checkpoint
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

// How far a checkpoint got, read without a model (for `repro status`): epochs done and
// batches of the next one (0 at an epoch end). Throws repro::Error naming an unreadable file.
struct CheckpointPosition {
  int64_t epochs_done = 0, mid_epoch_batches = 0;
};
CheckpointPosition peek_checkpoint(const std::filesystem::path& path);

}  // namespace repro
