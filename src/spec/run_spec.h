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
  Config config;  // every key; keys absent from an older file at what it ran as (KeyDef::when_absent), else default
};

// Reads spec.resolved.yaml (the inverse of PlannedRun::resolved_yaml); throws naming file:line.
RunSpec read_run_spec(const std::filesystem::path& path);
// The same from its text; `source` names it in messages ("tasks.json runs[3]").
RunSpec parse_run_spec(const std::string& text, const std::string& source);

// A setting whose resolved value differs between two spec.resolved.yaml texts, `before` and `after`.
struct SettingChange {
  std::string key;
  std::string before, after;  // the values as spec text
  // The key is not in that text: `before` written before the key existed (`before` is what the run ran as,
  // KeyDef::when_absent, or ""), or `after` without it.
  bool before_absent = false, after_absent = false;
  std::string problem;  // not "": the texts could not be compared, and why (a damaged file); no key then

  // The one text form, for messages: "train.lr: 0.003 -> 0.0003", "key: (absent) -> v",
  // "key: (absent: ran as v) -> w", "key: v -> (absent)", or the problem.
  std::string text() const;
};

// Every setting whose resolved value differs between two spec.resolved.yaml texts (keys added to repro since
// `before` was written count only when not at their default); one change naming the problem when `before` is
// not valid YAML (a damaged file).
std::vector<SettingChange> changed_settings(const std::string& before, const std::string& after);
// The settings two runs of one row and dataset differ in (changed_settings without the run's identity, the
// file's header: record/run_id_fields.h). With `ignore_by_design`, also without the keys that twins trained
// elsewhere may set differently by design (KeyDef::differs_by_design, declared in the key's binding).
std::vector<SettingChange> setting_differences(const std::string& before, const std::string& after,
                                               bool ignore_by_design);
// The first `most` changes' texts, "; " between them (a message's parenthesis).
std::string changes_text(const std::vector<SettingChange>& changes, size_t most = 3);
// How to keep both runs when a folder holds a run of another spec: the changed values as one-value
// sweep axes, or another --out; and why more train.epochs is another run.
std::string keep_both_advice(const std::vector<SettingChange>& changes);

struct EvalRequest {
  std::string name;                // eval/<name>.json; "" = the split's name (only without overrides)
  std::string split = "test";      // test | val
  std::vector<Setting> overrides;  // data settings only (eval_override_keys)
  SweepAxis levels;                // --levels KEY=V1,V2,...: one evaluation per value (key "" = none)
};

// The keys an evaluation may change, in the key table's order: those bound with eval_may_override
// (spec/run_keys.cpp).
const std::vector<std::string>& eval_override_keys();
// The same for a help line, a section whose every key is one of them written once: "data.verify, data.test_limit,
// data.val_limit, data.noise.*".
std::string eval_override_summary();
// Checks the request (keys allowed, a name, noise only on the test split); throws naming the key.
void check_eval_request(EvalRequest& request);

// The effective overrides of each evaluation point, in order (one point without --levels).
// data.noise.split is set to the evaluated split when a noise key is given without it.
std::vector<std::vector<Setting>> eval_points(const EvalRequest& request);

}  // namespace repro
