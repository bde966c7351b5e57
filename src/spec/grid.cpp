#include "spec/grid.h"

#include "data/registry.h"
#include "models/presets.h"
#include "util/strings.h"

namespace repro {

namespace {

void apply(Config& config, const std::vector<Setting>& settings) {
  for (const auto& s : settings) config.set(s.key, s.raw, s.where);
}

// Short label of an axis key: the key without its section, "model.ffn.ratio" -> "ffn.ratio".
std::string axis_label(const std::string& key) {
  const auto dot = key.find('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

// Every combination of axis values, as lists of indices (one list for no axes).
std::vector<std::vector<size_t>> combinations(const std::vector<SweepAxis>& axes) {
  std::vector<std::vector<size_t>> out = {{}};
  for (const auto& axis : axes) {
    std::vector<std::vector<size_t>> next;
    for (const auto& prefix : out)
      for (size_t i = 0; i < axis.values.size(); ++i) {
        auto combo = prefix;
        combo.push_back(i);
        next.push_back(combo);
      }
    out = next;
  }
  return out;
}

}  // namespace

std::string PlannedRun::run_subdir() const {
  return dataset + "/" + safe_name(model_config) + "/seed_" + std::to_string(seed);
}

std::string PlannedRun::resolved_yaml() const {
  std::string out = "# Resolved by repro: every key of the spec table, defaults filled in.\n";
  out += "experiment: " + experiment + "\n";
  if (folder != experiment) out += "profile: " + folder.substr(experiment.size() + 1) + "\n";
  out += "model_config: \"" + model_config + "\"\n";
  out += "dataset: " + dataset + "\n";
  out += "seed: " + std::to_string(seed) + "\n";
  out += config.to_yaml();
  return out;
}

std::vector<PlannedRun> expand_grid(const Experiment& experiment) {
  std::vector<PlannedRun> runs;
  const auto combos = combinations(experiment.axes);
  int row_index = 0;
  for (const auto& row : experiment.rows) {
    for (const auto& combo : combos) {
      Config config = Config::defaults();
      apply(config, experiment.base);
      apply(config, row.settings);
      std::string name = row.name;
      for (size_t a = 0; a < combo.size(); ++a) {
        const auto& axis = experiment.axes[a];
        config.set(axis.key, axis.values[combo[a]], axis.where);
        name += "+" + axis_label(axis.key) + "=" + config.text(axis.key);
      }
      for (const auto& dataset : experiment.datasets) {
        Config resolved = config;
        if (experiment.per_dataset.count(dataset)) apply(resolved, experiment.per_dataset.at(dataset));
        if (!experiment.profile.empty()) apply(resolved, experiment.profiles.at(experiment.profile).settings);
        apply(resolved, experiment.overrides);
        resolve_settings(resolved, find_dataset(dataset).info());
        for (const auto seed : experiment.seeds)
          runs.push_back({experiment.name, experiment.folder(), dataset, name, row_index, seed, resolved});
      }
      ++row_index;
    }
  }
  return runs;
}

std::vector<PlannedRun> one_per_configuration(const std::vector<PlannedRun>& runs) {
  std::vector<PlannedRun> kept;
  for (const auto& run : runs) {
    bool seen = false;
    for (const auto& k : kept) seen = seen || (k.dataset == run.dataset && k.model_config == run.model_config);
    if (!seen) kept.push_back(run);
  }
  return kept;
}

}  // namespace repro
