#include "spec/grid.h"

#include <algorithm>
#include <map>

#include "record/run_id_fields.h"
#include "spec/attention_variant.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

namespace {

void apply(Config& config, const std::vector<Setting>& settings) {
  for (const auto& s : settings) config.set(s.key, s.raw, s.where);
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

void check_seeds(const Experiment& experiment) {
  std::map<int64_t, int> count;
  std::vector<std::string> listed;
  for (const auto seed : experiment.seeds) {
    ++count[seed];
    listed.push_back(std::to_string(seed));
  }
  for (const auto& [seed, n] : count)
    if (n > 1)
      throw Error(experiment.seeds_where + ": seed " + std::to_string(seed) + " is listed " + std::to_string(n) +
                  " times in the seeds (" + join(listed, ",") + "); each seed is one run folder (seed_" +
                  std::to_string(seed) + "), so give each seed once");
}

// Two values of one axis that parse to the same setting would train in one folder.
void check_axis_values(const SweepAxis& axis) {
  std::map<std::string, std::string> first_raw;  // canonical -> raw
  for (const auto& raw : axis.values) {
    Config probe = Config::defaults();
    probe.set(axis.key, raw, axis.where);
    const auto [first, fresh] = first_raw.emplace(probe.text(axis.key), raw);
    if (!fresh)
      throw Error(axis.where + ": values '" + first->second + "' and '" + raw + "' of sweep axis '" + axis.key +
                  "' are the same value (" + first->first + "); both would train in one run folder");
  }
}

// A setting applied after the sweep values (per_dataset, profile, command line) replaces every value of the axis.
void check_axis_not_replaced(const SweepAxis& axis, const std::vector<Setting>& later, const std::string& layer) {
  for (const auto& setting : later)
    if (setting.key == axis.key)
      throw Error(setting.where + ": " + layer + " sets '" + axis.key +
                  "', which replaces every value of the sweep axis at " + axis.where +
                  ": its runs would all train one configuration");
}

// A row that sets the axis's key itself would be overridden by every axis value (a row "dgsa" training vanilla).
void check_axis_not_in_row(const SweepAxis& axis, const std::vector<ModelRow>& rows) {
  for (const auto& row : rows)
    for (const auto& setting : row.settings)
      if (setting.key == axis.key)
        throw Error(axis.where + ": model configuration '" + row.name + "' (" + setting.where + ") sets '" + axis.key +
                    "' itself, and every value of this sweep axis would replace it (its runs would not "
                    "train what the row says); sweep a key the rows leave alone, or leave the row out with --rows");
}

void check_axes(const Experiment& experiment) {
  std::map<std::string, std::string> first_where;  // key -> where
  for (const auto& axis : experiment.axes) {
    const auto [first, fresh] = first_where.emplace(axis.key, axis.where);
    if (!fresh)
      throw Error(axis.where + ": sweep axis '" + axis.key + "' is given twice (first at " + first->second +
                  "); give all its values in one axis, e.g. --set " + axis.key + "=V1,V2");
    check_axis_values(axis);
    check_axis_not_in_row(axis, experiment.rows);
    check_axis_not_replaced(axis, experiment.overrides, "the command line");
    if (!experiment.profile.empty())
      check_axis_not_replaced(axis, experiment.profiles.at(experiment.profile).settings,
                              "profile '" + experiment.profile + "'");
    for (const auto& [dataset, settings] : experiment.per_dataset)
      if (std::find(experiment.datasets.begin(), experiment.datasets.end(), dataset) != experiment.datasets.end())
        check_axis_not_replaced(axis, settings, "per_dataset '" + dataset + "'");
  }
}

// The last word: no two planned runs share a folder, whatever the reason.
void check_distinct_folders(const std::vector<PlannedRun>& runs) {
  std::map<std::string, const PlannedRun*> owner;  // relative folder -> run
  for (const auto& run : runs) {
    const auto [first, fresh] = owner.emplace(run.dir(), &run);
    if (!fresh)
      throw Error(first->second->origin + " and " + run.origin + " would both train in the run folder " + run.dir() +
                  " (model names are made folder-safe: characters other than letters, digits "
                  "and -_.=+ become '_'); give them distinct names");
  }
}

// The attention variants that read `key`: its owners for a variant's own key, the variants listing it for a shared
// one (none: not an attention key).
std::vector<std::string> variants_reading(const std::string& key) {
  std::vector<std::string> readers;
  const bool shared = is_shared_attention_key(key);
  for (const AttentionVariant* variant : attention_variants()) {
    const auto& read = variant->shared_keys_read;
    if (shared && std::find(read.begin(), read.end(), key) != read.end()) readers.push_back(variant->name);
    for (const auto& k : variant->keys)
      if (k.def.key == key) readers.push_back(variant->name);
  }
  return readers;
}

// A key the run's model does not read would train as if it were absent, yet enter the run's identity: refused
// wherever it was set (the row, the base, per_dataset, the profile, a sweep axis, the command line), naming the
// place, the key and the row.
void check_keys_read(const Experiment& experiment, const ModelRow& row, const std::string& dataset,
                     const Config& resolved) {
  const std::string in_row = "model configuration '" + row.name + "'";
  const auto refuse_unread = [&](const std::string& key, const std::string& where, const std::string& layer) {
    const std::string why = unread_because(key, resolved);
    if (why.empty()) return;
    const bool row_layer = layer == in_row;
    throw Error(where + ": " + layer + " sets " + key + ", which " +
                (row_layer ? "its model" : in_row + " on " + dataset) + " does not read (" + why +
                "): leave the key out" +
                (row_layer ? " of the row, or change the row's model" : ", or set it in the rows that read it"));
  };
  for (const auto& setting : row.settings) refuse_unread(setting.key, setting.where, in_row);
  for (const auto& setting : experiment.base) refuse_unread(setting.key, setting.where, "the spec's base");
  for (const auto& axis : experiment.axes) refuse_unread(axis.key, axis.where, "sweep axis");
  if (experiment.per_dataset.count(dataset))
    for (const auto& setting : experiment.per_dataset.at(dataset))
      refuse_unread(setting.key, setting.where, "per_dataset '" + dataset + "'");
  if (!experiment.profile.empty())
    for (const auto& setting : experiment.profiles.at(experiment.profile).settings)
      refuse_unread(setting.key, setting.where, "profile '" + experiment.profile + "'");
  for (const auto& setting : experiment.overrides) refuse_unread(setting.key, setting.where, "the command line");
}

// Every dataset the spec names (datasets, profiles, per_dataset) must be one the catalog knows.
void check_dataset_names(const Experiment& experiment, const DatasetCatalog& catalog) {
  for (const auto& [name, where] : experiment.dataset_mentions) {
    if (catalog.datasets.count(name)) continue;
    const auto names = catalog.names();
    const std::string guess = closest_match(name, names);
    throw Error(where + ": unknown dataset '" + escaped(name) + "'; expected one of " + join(names, " | ") +
                (guess.empty() ? "" : "; did you mean '" + guess + "'?"));
  }
}

}  // namespace

std::string unread_because(const std::string& key, const Config& resolved) {
  if (resolved.text("model.kind") == "bow") {
    if (starts_with(key, "model.attention.") || starts_with(key, "model.ffn.") || key == "model.preset")
      return "model.kind=bow has no attention or feed-forward block: docs/models.md";
    if (const KeyDef* def = find_key(key); def && def->not_for_bow)
      return "model.kind=bow has no blocks to normalize and no positions: docs/models.md";
    return "";
  }
  if (const KeyDef* def = find_key(key); def && !def->read_only_when_key.empty()) {
    const std::string& value = resolved.text(def->read_only_when_key);
    const auto& values = def->read_only_when_values;
    if (std::find(values.begin(), values.end(), value) == values.end())
      return "only " + def->read_only_when_key + "=" + join(values, " | ") + " reads it; it is " + value;
  }
  const std::string kind = resolved.text("model.attention.kind");
  const AttentionVariant* chosen = find_attention_variant(kind);
  if (!chosen) return "";  // check_claims names an unknown variant
  const auto readers = variants_reading(key);
  const bool attention_key = !readers.empty() || is_shared_attention_key(key);
  if (!attention_key || std::find(readers.begin(), readers.end(), kind) != readers.end()) return "";
  if (readers.empty()) return "no attention variant reads it; its attention is " + kind;
  return "only model.attention.kind=" + join(readers, " | ") + " reads it; its attention is " + kind;
}

std::string readers_text(const std::string& key) {
  if (const KeyDef* def = find_key(key); def && !def->read_only_when_key.empty())
    return "read with " + def->read_only_when_key + " = " + join(def->read_only_when_values, " | ");
  if (!is_shared_attention_key(key)) return "";
  const auto readers = variants_reading(key);
  return readers.empty() ? "read by no attention variant" : "read by model.attention.kind = " + join(readers, " | ");
}

std::string PlannedRun::resolved_yaml() const {
  std::string out = "# Resolved by repro: every key this run reads, defaults filled in.\n";
  out += run_id_yaml_header(id());
  out += config.to_yaml(0, [this](const std::string& key) { return unread_because(key, config).empty(); });
  return out;
}

std::vector<std::string> DatasetCatalog::names() const {
  std::vector<std::string> names;
  for (const auto& entry : datasets) names.push_back(entry.first);
  return names;
}

std::string axis_label(const std::string& key) {
  const auto dot = key.find('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

std::vector<PlannedRun> expand_grid(const Experiment& experiment, const DatasetCatalog& catalog) {
  check_dataset_names(experiment, catalog);
  check_seeds(experiment);
  check_axes(experiment);
  std::vector<PlannedRun> runs;
  const auto combos = combinations(experiment.axes);
  int row_index = 0;
  for (const auto& row : experiment.rows) {
    if (!experiment.row_selected(row.name)) {  // --rows: not planned, but its configurations keep their index
      row_index += static_cast<int>(combos.size());
      continue;
    }
    for (const auto& combo : combos) {
      Config config = Config::defaults();
      apply(config, experiment.base);
      apply(config, row.settings);
      SweepValues sweep;
      for (size_t a = 0; a < combo.size(); ++a) {
        const auto& axis = experiment.axes[a];
        config.set(axis.key, axis.values[combo[a]], axis.where);
        sweep.emplace_back(axis_label(axis.key), config.text(axis.key));
      }
      const std::string name = RunId::compose_model_config(row.name, sweep);
      for (const auto& dataset : experiment.datasets) {
        if (!experiment.dataset_selected(dataset)) continue;  // --datasets
        Config resolved = config;
        if (experiment.per_dataset.count(dataset)) apply(resolved, experiment.per_dataset.at(dataset));
        if (!experiment.profile.empty()) apply(resolved, experiment.profiles.at(experiment.profile).settings);
        apply(resolved, experiment.overrides);
        resolve_settings(resolved, catalog.datasets.at(dataset));
        check_keys_read(experiment, row, dataset, resolved);
        PlannedRun probe;
        probe.dataset = dataset, probe.origin = row.where + ": model configuration '" + name + "'";
        probe.overrides = experiment.overrides;
        const RunOptions options = [&] {
          try {
            return run_options(resolved);
          } catch (const Error& e) {  // a combination of settings no run can use: named before anything trains
            throw Error(probe.blame(e.what()));
          }
        }();
        for (const auto seed : experiment.seeds) {
          PlannedRun run;
          run.id() = RunId{experiment.name, experiment.profile, dataset, name, row.name, sweep, seed};
          run.position = static_cast<int64_t>(runs.size());
          run.row_index = row_index, run.config = resolved, run.origin = probe.origin, run.options = options;
          run.overrides = experiment.overrides;
          runs.push_back(std::move(run));
        }
      }
      ++row_index;
    }
  }
  check_distinct_folders(runs);
  return runs;
}

std::string PlannedRun::blame(const std::string& message) const {
  for (auto o = overrides.rbegin(); o != overrides.rend(); ++o)
    if (message.find(o->key + "=") != std::string::npos || message.find("'" + o->key + "'") != std::string::npos)
      return o->where + ": " + message + " (" + origin + " on " + dataset + ")";
  return origin + " on " + dataset + ": " + message;
}

std::string level_label(const Setting& level, const RunOptions& options) {
  if (level.key == "data.noise.level") return name_of(options.data.noise.kind) + " " + level.raw;
  return split(level.key, '.').back() + "=" + level.raw;
}

std::vector<std::string> same_configurations(const std::vector<PlannedRun>& runs) {
  std::map<std::string, std::string> first;  // dataset + seed + every setting -> its model configuration
  std::vector<std::string> pairs;
  for (const auto& run : runs) {
    const std::string key = run.dataset + "\n" + std::to_string(run.seed) + "\n" + run.config.to_yaml();
    const auto [it, fresh] = first.emplace(key, run.model_config);
    if (!fresh && it->second != run.model_config && run.seed == runs.front().seed)
      pairs.push_back("'" + it->second + "' and '" + run.model_config + "' on " + run.dataset);
  }
  return pairs;
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
