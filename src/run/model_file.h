#pragma once
// model.pt of a run folder: the weights of one epoch (train.save_model: the
// reported epoch, the last one, or none), kept when the run finishes so that
// `repro eval` and `repro rollout` can use the trained model.
//
// The file is the LibTorch archive that Module::save writes (a TorchScript
// module without methods: torch.jit.load reads it in Python, and its
// state_dict() names are the C++ parameter paths, e.g. blocks.0.attn.qkv.weight)
// plus attributes that are not parameters: repro_epoch (int), repro_rule (the
// selection rule that chose the epoch), repro_run (the run that wrote it) and
// repro_spec_sha256 (of that run's spec.resolved.yaml). A model.pt copied into
// another run's folder is refused by eval and rollout (load_model_file).
#include <torch/torch.h>

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "record/folder.h"
#include "record/run_record.h"
#include "spec/options.h"
#include "train/history.h"

namespace repro {

inline std::filesystem::path model_file_path(const std::filesystem::path& run_dir) { return RunFolder(run_dir).model_path(); }

struct ModelFileInfo {
  int64_t epoch = 0;        // 1-based epoch whose weights the file holds
  std::string rule;         // best_val | last
  std::string run;          // RunId::key() of the run that wrote it ("" = written before repro recorded it)
  std::string spec_sha256;  // of that run's spec.resolved.yaml when it was written
};

// Writes `model` with its epoch and rule atomically; throws repro::Error naming `path`.
void write_model_file(const std::filesystem::path& path, torch::nn::Module& model, const ModelFileInfo& info);
// Reads the epoch and rule only; throws repro::Error naming `path` when it is not a repro model file.
ModelFileInfo read_model_file_info(const std::filesystem::path& path);
// Loads the weights into `model` (built from the run's spec); throws naming `path` and what did not fit, or
// when the file was written by another run than `run` (the identity of the folder's spec.resolved.yaml).
ModelFileInfo load_model_file(const std::filesystem::path& path, torch::nn::Module& model, const RunId& run);

// summary.json's "model_file": model.pt's epoch and rule; nullopt without a model.pt.
std::optional<ModelFileRecord> model_file_record(const std::filesystem::path& run_dir);


// The trainer's model_changed hook for a run folder: an empty history (a fresh start) removes a
// stale model.pt; when the history's last epoch is the epoch to keep and the file does not hold
// it yet, the model is written, stamped with `owner`'s run and spec_sha256. So a resume (or a kill
// between the checkpoint and model.pt) ends with the file of an undisturbed run.
std::function<void(torch::nn::Module&, const std::vector<EpochRow>&)> keep_model_hook(std::filesystem::path path,
                                                                                      SaveModel save, SelectRule select,
                                                                                      bool has_validation,
                                                                                      ModelFileInfo owner);

}  // namespace repro
