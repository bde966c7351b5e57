#pragma once
// `repro eval`: a finished run's model.pt evaluated again, without training, on its
// own data or with data settings changed (noise on the test split, a test limit),
// written to <run>/eval/<name>.json.
#include <filesystem>
#include <string>
#include <vector>

#include "data/loader.h"
#include "record/eval_record.h"
#include "spec/run_spec.h"

namespace repro {

// `path` itself when it holds summary.json, else every folder below it that does (sorted).
std::vector<std::filesystem::path> find_run_folders(const std::filesystem::path& path);

// Why a run folder cannot be evaluated (not finished, no model.pt); "" when it can.
std::string why_not_evaluable(const std::filesystem::path& run_dir);

// Evaluates one run folder (summary.json and model.pt needed) and writes eval/<name>.json;
// returns what it wrote. Throws repro::Error naming the folder when it cannot be evaluated.
EvalRecord evaluate_run(const std::filesystem::path& run_dir, const EvalRequest& request, DataLoader& loader,
                        torch::Device device);

}  // namespace repro
