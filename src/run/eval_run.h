#pragma once
// `repro eval`: a finished run's model.pt evaluated again, without training, on its
// own data or with data settings changed (noise on the test split, a test limit),
// written to <run>/eval/<name>.json.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/loader.h"
#include "spec/config.h"
#include "spec/experiment.h"

namespace repro {

// A run as its spec.resolved.yaml describes it.
struct RunSpec {
  std::string experiment, profile, model_config, dataset;
  int64_t seed = 0;
  Config config;  // every key; keys absent from an older file keep their defaults
};

// Reads spec.resolved.yaml (the inverse of PlannedRun::resolved_yaml); throws naming file:line.
RunSpec read_run_spec(const std::filesystem::path& path);

// `path` itself when it holds summary.json, else every folder below it that does (sorted).
std::vector<std::filesystem::path> find_run_folders(const std::filesystem::path& path);

struct EvalRequest {
  std::string name;                // eval/<name>.json; "" = the split's name (only without overrides)
  std::string split = "test";      // test | val
  std::vector<Setting> overrides;  // data settings only (eval_override_keys)
  SweepAxis levels;                // --levels KEY=V1,V2,...: one evaluation per value (key "" = none)
};

// The keys an evaluation may change: data.noise.*, data.test_limit, data.val_limit, data.verify.
const std::vector<std::string>& eval_override_keys();
// Checks the request (keys allowed, a name, noise only on the test split); throws naming the key.
void check_eval_request(EvalRequest& request);

// The effective overrides of each evaluation point, in order (one point without --levels).
// data.noise.split is set to the evaluated split when a noise key is given without it.
std::vector<std::vector<Setting>> eval_points(const EvalRequest& request);

// Why a run folder cannot be evaluated (not finished, no model.pt); "" when it can.
std::string why_not_evaluable(const std::filesystem::path& run_dir);

// Evaluates one run folder (summary.json and model.pt needed) and writes eval/<name>.json;
// returns what it wrote. Throws repro::Error naming the folder when it cannot be evaluated.
nlohmann::json evaluate_run(const std::filesystem::path& run_dir, const EvalRequest& request, DataLoader& loader,
                            torch::Device device);

}  // namespace repro
