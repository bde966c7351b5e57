#pragma once
// A trained run loaded for `repro rollout`: its spec, data (with data overrides
// such as data.test_limit=0 applied), and its model.pt in a model in eval mode.
#include <torch/torch.h>

#include <filesystem>
#include <string>
#include <vector>

#include "data/loader.h"
#include "models/model.h"
#include "run/eval_run.h"
#include "run/model_file.h"
#include "spec/options.h"

namespace repro {

struct RolloutRun {
  std::filesystem::path dir;
  RunSpec spec;
  RunOptions options;  // the run's settings with the overrides applied, converted once
  RunData data;
  ClassifierPtr model;
  ModelFileInfo file;
};

// Throws repro::Error naming `dir` when it has no finished run with model.pt.
RolloutRun load_rollout_run(const std::filesystem::path& dir, const std::vector<Setting>& overrides, DataLoader& loader,
                            torch::Device device);

// The class name of `label`, or the number when the dataset has no names.
std::string class_name(const DatasetInfo& info, int64_t label);

}  // namespace repro
