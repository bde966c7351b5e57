#pragma once
// What a finished run's folder says about its settings, read back as settings: its
// spec.resolved.yaml (RunSpec), and what `repro eval` may change of them (EvalRequest:
// the data keys an evaluation may set, checked once here).
#include <filesystem>
#include <string>
#include <vector>

#include "record/run_id.h"
#include "spec/config.h"
#include "spec/experiment.h"

namespace repro {

// A run as its spec.resolved.yaml describes it: its identity (record/run_id.h; row and sweep values are not in
// the file: model_config holds them) and its settings.
struct RunSpec : RunId {
  Config config;  // every key; keys absent from an older file keep their defaults
};

// Reads spec.resolved.yaml (the inverse of PlannedRun::resolved_yaml); throws naming file:line.
RunSpec read_run_spec(const std::filesystem::path& path);
// The same from its text; `source` names it in messages ("tasks.json runs[3]").
RunSpec parse_run_spec(const std::string& text, const std::string& source);

// "key: old -> new" for every setting whose resolved value differs between two spec.resolved.yaml texts
// (keys added to repro since `before` was written count only when not at their default); one line
// saying so when `before` is not valid YAML (a damaged file).
std::vector<std::string> changed_settings(const std::string& before, const std::string& after);
// The settings two runs of one row and dataset differ in (changed_settings without the run's header: seed,
// experiment, profile, dataset, model_config). With `ignore_by_design`, also without the keys that twins trained
// elsewhere may set differently by design (differs_by_design).
std::vector<std::string> setting_differences(const std::string& before, const std::string& after,
                                             bool ignore_by_design);
// Keys two trainings of one run may differ in by design (where they ran, how they are checked, logged and evaluated
// in batches): train.precision, train.eval_batch_size, train.eval_tokens, train.log_every, train.tensorboard,
// train.save_model, data.verify, data.files (where the files are).
bool differs_by_design(const std::string& key);
// How to keep both runs when a folder holds a run of another spec: the changed values as one-value
// sweep axes, or another --out; and why more train.epochs is another run.
std::string keep_both_advice(const std::vector<std::string>& changes);

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

}  // namespace repro
