#pragma once
// Grid expansion: rows x sweep values x datasets x seeds -> one PlannedRun each.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "record/run_id.h"
#include "spec/config.h"
#include "spec/experiment.h"
#include "spec/options.h"
#include "spec/presets.h"

namespace repro {

// One run of the grid: its identity (record/run_id.h: experiment, profile, dataset, model configuration, seed;
// dir() is its folder inside --out), its place in the tables and its resolved settings.
struct PlannedRun : RunId {
  int64_t position = 0;  // its place in the grid's plan, 0-based (plan.json order; "run 3" is position 2)
  int row_index = 0;     // order of model configurations in tables
  Config config;       // every key resolved: spec.resolved.yaml and identity checks read it as text
  std::string origin;  // where it comes from, for messages: "spec.yaml:12: model configuration 'wide'"
  RunOptions options;  // `config` converted once (run_options): what every stage below spec/ reads
  std::vector<Setting> overrides;  // the command line's key=value settings, last in the order above

  // The spec.resolved.yaml text.
  std::string resolved_yaml() const;
  // `message` (a setting this run cannot use) prefixed with where it comes from: the command-line override whose
  // key it names when there is one (issue 48: `model.heads=3` was blamed on the spec's row), else `origin`.
  std::string blame(const std::string& message) const;
};

// The datasets a spec may name, with what resolving "auto" needs of each. The data
// layer builds it (dataset_catalog() in data/registry.h); spec/ never includes data/.
struct DatasetCatalog {
  std::map<std::string, DatasetTraits> datasets;  // name -> traits
  std::vector<std::string> names() const;
};

// Checks every dataset the spec names against `catalog` (naming file:line and the
// closest name). Applies defaults < base < row < sweep values < per_dataset < profile < overrides,
// validating each. Then checks run identity: two planned runs never share a run
// folder (duplicate seeds, equal values of a sweep axis, one axis given twice, an
// axis replaced by a later setting, model names equal once made folder-safe);
// throws naming both sources before anything is trained.
std::vector<PlannedRun> expand_grid(const Experiment& experiment, const DatasetCatalog& catalog);

// The label of a sweep axis in a model configuration's name and its record's sweep values: the key without its
// section, "model.ffn.ratio" -> "ffn.ratio" ("DGViT+ffn.ratio=4").
std::string axis_label(const std::string& key);

// Why a run with these resolved settings does not read `key`, or "" when it does: another attention variant's key
// (a vanilla run with model.attention.lambda_init), a shared attention key its variant does not list
// (model.attention.qkv_bias in diff), a key read only for another value of a key (model.ffn.inh_p without the gimlp
// feed-forward), an attention, feed-forward or preset key on the bag of words. Such a key is refused where a spec
// sets it, and spec.resolved.yaml leaves it out, so that a new variant's key changes no other run's record.
std::string unread_because(const std::string& key, const Config& resolved);
// Who reads `key` where not every run does, for `repro list` and docs/spec.md, from the registry and the key's
// binding: "read by model.attention.kind = vanilla | plug | gi", "read with model.ffn.kind = gimlp"; "" otherwise.
std::string readers_text(const std::string& key);

// The first run (seed) of each (dataset, model configuration), in grid order: what
// `repro params` and `repro bench` look at.
std::vector<PlannedRun> one_per_configuration(const std::vector<PlannedRun>& runs);

// Model configurations that resolve to the same settings on a dataset ("'a' and 'b' on imdb"): they would
// train the same model twice under two names (the runner warns before training).
std::vector<std::string> same_configurations(const std::vector<PlannedRun>& runs);

// The column label of one value of a `repro eval --levels` axis: "gaussian 0.1" for data.noise.level (the
// noise kind of `options`), "test_limit=100" for any other key.
std::string level_label(const Setting& level, const RunOptions& options);

}  // namespace repro
