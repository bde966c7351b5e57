#pragma once
// model.pt of a run folder: the weights of one epoch (train.save_model: the
// reported epoch, the last one, or none), kept when the run finishes so that
// `repro eval` and `repro rollout` can use the trained model.
//
// The file is the LibTorch archive that Module::save writes (a TorchScript
// module without methods: torch.jit.load reads it in Python, and its
// state_dict() names are the C++ parameter paths, e.g. blocks.0.attn.qkv.weight)
// plus two attributes that are not parameters: repro_epoch (int) and
// repro_rule (the selection rule that chose the epoch).
#include <torch/torch.h>

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "spec/options.h"
#include "train/history.h"

namespace repro {

inline std::filesystem::path model_file_path(const std::filesystem::path& run_dir) { return run_dir / "model.pt"; }

struct ModelFileInfo {
  int64_t epoch = 0;  // 1-based epoch whose weights the file holds
  std::string rule;   // best_val | last
};

// Writes `model` with its epoch and rule atomically; throws repro::Error naming `path`.
void write_model_file(const std::filesystem::path& path, torch::nn::Module& model, const ModelFileInfo& info);
// Reads the epoch and rule only; throws repro::Error naming `path` when it is not a repro model file.
ModelFileInfo read_model_file_info(const std::filesystem::path& path);
// Loads the weights into `model` (built from the run's spec); throws naming `path` and what did not fit.
ModelFileInfo load_model_file(const std::filesystem::path& path, torch::nn::Module& model);

// summary.json's "model_file": {"file": "model.pt", "epoch": E, "rule": R}, or null without a model.pt.
nlohmann::json model_file_record(const std::filesystem::path& run_dir);

// The epoch whose weights the run keeps after `history` (0 = none): the reported epoch under
// train.select (`select`, with or without a validation split), the last epoch, or none.
int64_t epoch_to_keep(SaveModel save, SelectRule select, bool has_validation, const std::vector<EpochRow>& history,
                      std::string* rule_used = nullptr);

// The trainer's model_changed hook for a run folder: an empty history (a fresh start) removes a
// stale model.pt; when the history's last epoch is the epoch to keep and the file does not hold
// it yet, the model is written. So a resume (or a kill between the checkpoint and model.pt)
// ends with the file of an undisturbed run.
std::function<void(torch::nn::Module&, const std::vector<EpochRow>&)> keep_model_hook(std::filesystem::path path,
                                                                                      SaveModel save, SelectRule select,
                                                                                      bool has_validation);

}  // namespace repro
