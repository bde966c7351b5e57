#include "spec/experiment.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "spec/config.h"
#include "spec/keys.h"
#include "spec/spec_yaml.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace {

using spec_yaml::at;
using spec_yaml::check_duplicate_keys;
using spec_yaml::entry_of;
using spec_yaml::key_text;
using spec_yaml::kind_of;
using spec_yaml::line_of;
using spec_yaml::read_yaml;
using spec_yaml::value_text;

const std::vector<std::string> kTopLevel = {"experiment", "description", "datasets",    "seeds", "models",
                                            "sweep",      "profiles",    "per_dataset", "model", "data",
                                            "text",       "train",       "report"};
const std::vector<std::string> kSections = {"model", "data", "text", "train"};

bool is_one_of(const std::string& word, const std::vector<std::string>& words) {
  for (const auto& w : words)
    if (w == word) return true;
  return false;
}

std::string scalar_text(const YAML::Node& node) {
  if (node.IsScalar()) return node.Scalar();
  if (node.IsSequence()) {  // flow lists such as betas: [0.9, 0.999]
    std::vector<std::string> items;
    for (const auto& item : node) items.push_back(item.IsScalar() ? item.Scalar() : "?");
    return "[" + join(items, ", ") + "]";
  }
  return "";
}

// True when `prefix` is a section of some key: "model.ffn" for "model.ffn.ratio".
bool is_section(const std::string& prefix) {
  for (const auto& name : all_key_names())
    if (starts_with(name, prefix + ".")) return true;
  return false;
}

void add_scalar(const std::string& file, const std::string& key, const YAML::Node& key_node, const YAML::Node& value,
                std::vector<Setting>& out) {
  const std::string where = at(file, key_node);
  const KeyDef* def = find_key(key);
  if (!def) throw_unknown_key(key, where);
  if (value.IsSequence() && def->type != ValueType::FloatPair)
    throw Error(where + ": key '" + key + "': got a list, expected " + type_name(*def) +
                " (to sweep over values, use `sweep:` or --set)");
  if (value.IsNull()) throw Error(where + ": key '" + key + "' has no value; expected " + type_name(*def));
  out.push_back({key, scalar_text(value), where});
}

// Flattens nested mappings into dotted settings; keys may themselves be dotted.
void flatten(const std::string& file, const YAML::Node& node, const std::string& prefix, std::vector<Setting>& out) {
  for (const auto& entry : node) {
    const std::string key = prefix + key_text(file, entry.first);
    if (!entry.second.IsMap()) {
      add_scalar(file, key, entry.first, entry.second, out);
      continue;
    }
    if (!is_section(key)) {  // report the misspelt level itself, with the nearest full key
      std::string nearest = key;
      if (entry.second.size() > 0) nearest += "." + key_text(file, entry.second.begin()->first);
      throw_unknown_key(nearest, at(file, entry.first));
    }
    flatten(file, entry.second, key + ".", out);
  }
}

void check_sections(const std::string& file, const YAML::Node& node, const std::string& context) {
  for (const auto& entry : node) {
    const std::string key = key_text(file, entry.first);
    const std::string head = split(key, '.')[0];
    const bool known = is_one_of(head, kSections);
    if (known && (entry.second.IsMap() || key.find('.') != std::string::npos)) continue;
    if (known) throw Error(at(file, entry.first) + ": '" + key + "' in " + context + " must be a mapping of keys");
    if (key == "name") continue;
    const std::string guess = closest_match(key, kSections);
    throw Error(at(file, entry.first) + ": unknown key '" + key + "' in " + context +
                (guess.empty() ? "; expected name, model, data, text or train" : "; did you mean '" + guess + "'?"));
  }
}

// Settings of the model/data/text/train entries of `node` (other keys are skipped).
std::vector<Setting> section_settings(const std::string& file, const YAML::Node& node) {
  std::vector<Setting> settings;
  for (const auto& entry : node) {
    const std::string key = key_text(file, entry.first);
    if (!is_one_of(split(key, '.')[0], kSections)) continue;
    if (entry.second.IsMap())
      flatten(file, entry.second, key + ".", settings);
    else
      add_scalar(file, key, entry.first, entry.second, settings);
  }
  return settings;
}

// `seeds: 3` reads as "seed 3" to some and "three seeds" to others: refused with both spelled out.
void refuse_bare_seed_count(const std::string& where, const std::string& text) {
  if (text.empty() || text.size() > 6 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return;
  const long count = std::stol(text);
  throw Error(where + ": 'seeds: " + text + "' has two readings: write seeds: [" + text + "] for the one seed " + text +
              (count > 0 ? ", or seeds: 0-" + std::to_string(count - 1) + " for " + text + " seeds (0 to " +
                               std::to_string(count - 1) + ")"
                         : ""));
}

std::string seeds_text(const std::string& file, const YAML::Node& key_node, const YAML::Node& node) {
  if (node.IsMap()) throw Error(at(file, key_node) + ": 'seeds': got a mapping, expected a list like 0-4 or [0, 1]");
  if (node.IsScalar()) refuse_bare_seed_count(at(file, key_node), trim(node.Scalar()));
  if (!node.IsSequence()) return node.IsScalar() ? node.Scalar() : "";
  std::vector<std::string> items;
  for (const auto& item : node) items.push_back(value_text(file, key_node, item, "seeds", "integers"));
  return join(items, ",");
}

// Every setting validated on its own, and each key given once: `train: {epochs: 50}` and `train.epochs: 1`
// in one block name the same key twice.
void check_settings(const std::vector<Setting>& settings) {
  Config probe = Config::defaults();
  std::map<std::string, std::string> first_where;
  for (const auto& s : settings) {
    probe.set(s.key, s.raw, s.where);
    const auto [first, fresh] = first_where.emplace(s.key, s.where);
    if (!fresh) throw Error(s.where + ": key '" + s.key + "' is given twice (first at " + first->second + ")");
  }
}

// A name that becomes a folder: not empty and not "." or ".." once made safe; one line of UTF-8 without control
// characters, C1 ones included (a newline broke the log line and the Markdown table; U+009B or a byte that is not
// UTF-8 ended the run in the JSON library's error, naming nothing).
void check_folder_name(const std::string& name, const std::string& where, const std::string& what) {
  if (const auto bad = first_unprintable(name))
    throw Error(where + ": " + what + " '" + escaped(name) + "' holds " + bad->what + " at byte " +
                std::to_string(bad->at) +
                " (an escape such as \\n, \\t, \\N or \\x9b in a YAML string); a name is one line of printable "
                "UTF-8 characters");
  const std::string folder = safe_name(name);
  if (name.empty() || folder == "." || folder == "..")
    throw Error(where + ": " + what + " '" + name + "' cannot be a folder name; use letters, digits, '-', '_' or '.'");
}

void read_rows(const std::string& file, const YAML::Node& key_node, const YAML::Node& models, Experiment& experiment) {
  if (!models.IsSequence())
    throw Error(at(file, key_node) + ": 'models' must be a list of {name: ..., model/data/train: ...}");
  if (models.size() == 0)
    throw Error(at(file, key_node) +
                ": 'models' is an empty list; give at least one {name: ...} or leave the key out for one row");
  std::map<std::string, std::string> names;  // name -> where
  for (const auto& row_node : models) {
    const auto name_entry = row_node.IsMap() ? entry_of(file, row_node, "name") : std::nullopt;
    if (!name_entry) throw Error(at(file, row_node) + ": each entry of 'models' needs a 'name'");
    ModelRow row;
    row.where = at(file, name_entry->first);
    row.name = value_text(file, name_entry->first, name_entry->second, "name", "a model name");
    check_folder_name(row.name, row.where, "model name");
    const auto [first, fresh] = names.emplace(row.name, row.where);
    if (!fresh) throw Error(row.where + ": duplicate model name '" + row.name + "' (first at " + first->second + ")");
    check_sections(file, row_node, "a 'models' entry");
    row.settings = section_settings(file, row_node);
    check_settings(row.settings);
    experiment.rows.push_back(row);
  }
}

// Dataset names are checked against the data layer's catalog when the grid is
// expanded (spec/ does not know the datasets); here each is recorded with its place.
void read_datasets(const std::string& file, const YAML::Node& key_node, const YAML::Node& node,
                   std::vector<std::string>& datasets, DatasetMentions& mentions) {
  std::vector<YAML::Node> items;
  if (node.IsScalar())
    items.push_back(node);
  else if (node.IsSequence())
    for (const auto& item : node) items.push_back(item);
  else
    throw Error(at(file, key_node) + ": 'datasets': got " + kind_of(node) + ", expected a list of dataset names");
  if (items.empty())
    throw Error(at(file, key_node) +
                ": 'datasets' is an empty list; expected at least one dataset name (`repro list`)");
  std::map<std::string, std::string> seen;  // name -> where
  for (const auto& item : items) {
    const std::string name = value_text(file, key_node, item, "datasets", "dataset names");
    mentions.emplace_back(name, at(file, item));
    const auto [first, fresh] = seen.emplace(name, at(file, item));
    if (!fresh)
      throw Error(at(file, item) + ": dataset '" + name + "' is listed twice in 'datasets' (first at " + first->second +
                  ")");
    datasets.push_back(name);
  }
}

void read_sweep(const std::string& file, const YAML::Node& key_node, const YAML::Node& node, Experiment& experiment) {
  if (!node.IsMap()) throw Error(at(file, key_node) + ": 'sweep' must map keys to lists of values");
  for (const auto& entry : node) {
    SweepAxis axis;
    axis.key = key_text(file, entry.first);
    axis.where = at(file, entry.first);
    if (!find_key(axis.key)) throw_unknown_key(axis.key, axis.where);
    if (!entry.second.IsSequence() || entry.second.size() == 0)
      throw Error(axis.where + ": sweep axis '" + axis.key + "' needs a non-empty list of values");
    for (const auto& value : entry.second) {
      if (value.IsMap() || value.IsNull())
        throw Error(axis.where + ": sweep axis '" + axis.key + "': got " + kind_of(value) + " among its values");
      axis.values.push_back(scalar_text(value));
    }
    Config probe = Config::defaults();
    for (const auto& value : axis.values) probe.set(axis.key, value, axis.where);
    experiment.axes.push_back(axis);
  }
}

Experiment::Profile read_profile(const std::string& file, const std::string& name, const YAML::Node& node,
                                 DatasetMentions& mentions) {
  Experiment::Profile profile;
  for (const auto& item : node) {
    const std::string key = key_text(file, item.first);
    if (key == "datasets") {
      read_datasets(file, item.first, item.second, profile.datasets, mentions);
    } else if (key == "seeds") {
      profile.seeds_where = at(file, item.first) + " (profile " + name + ")";
      profile.seeds = parse_seeds(seeds_text(file, item.first, item.second), profile.seeds_where);
    } else if (item.second.IsMap()) {
      flatten(file, item.second, key + ".", profile.settings);
    } else {
      add_scalar(file, key, item.first, item.second, profile.settings);
    }
  }
  check_settings(profile.settings);
  return profile;
}

void read_profiles(const std::string& file, const YAML::Node& key_node, const YAML::Node& node,
                   Experiment& experiment) {
  if (!node.IsMap()) throw Error(at(file, key_node) + ": 'profiles' must map profile names to settings");
  for (const auto& entry : node) {
    const std::string name = key_text(file, entry.first);
    if (safe_name(name) != name || name.find_first_not_of('.') == std::string::npos)
      throw Error(at(file, entry.first) + ": profile name '" + name + "' must be a plain word");
    if (!entry.second.IsMap())
      throw Error(at(file, entry.first) + ": profile '" + name + "' must be a mapping of settings");
    experiment.profiles[name] = read_profile(file, name, entry.second, experiment.dataset_mentions);
  }
}

void read_per_dataset(const std::string& file, const YAML::Node& key_node, const YAML::Node& node,
                      Experiment& experiment) {
  if (!node.IsMap()) throw Error(at(file, key_node) + ": 'per_dataset' must map dataset names to settings");
  for (const auto& entry : node) {
    std::vector<std::string> dataset;
    read_datasets(file, entry.first, entry.first, dataset, experiment.dataset_mentions);
    if (!entry.second.IsMap())
      throw Error(at(file, entry.first) + ": per_dataset '" + dataset[0] + "' must be a mapping of settings");
    std::vector<Setting> settings;
    flatten(file, entry.second, "", settings);
    check_settings(settings);
    experiment.per_dataset[dataset[0]] = settings;
  }
}

void check_top_level(const std::string& file, const YAML::Node& root) {
  for (const auto& entry : root) {
    const std::string key = key_text(file, entry.first);
    const bool dotted_section = key.find('.') != std::string::npos && is_one_of(split(key, '.')[0], kSections);
    if (is_one_of(key, kTopLevel) || dotted_section) {
      if (is_one_of(key, kSections) && !entry.second.IsMap())
        throw Error(at(file, entry.first) + ": '" + key + "' must be a mapping of keys, got " + kind_of(entry.second));
      continue;
    }
    const std::string guess = closest_match(key, kTopLevel);
    throw Error(at(file, entry.first) + ": unknown top-level key '" + key + "'" +
                (guess.empty() ? "; expected one of " + join(kTopLevel, ", ") : "; did you mean '" + guess + "'?"));
  }
}

// `report: {baseline: ROW}`; ROW must name one of the rows (`models:`).
void read_report(const std::string& path, const YAML::Node& key_node, const YAML::Node& node, Experiment& experiment) {
  if (!node.IsMap())
    throw Error(at(path, key_node) + ": 'report': got " + kind_of(node) + ", expected {baseline: ROW}");
  for (const auto& entry : node)
    if (key_text(path, entry.first) != "baseline")
      throw Error(at(path, entry.first) + ": 'report." + entry.first.Scalar() + "': unknown key (known: baseline)");
  const auto e = entry_of(path, node, "baseline");
  if (!e) return;
  experiment.report_baseline = value_text(path, e->first, e->second, "report.baseline", "a row name");
  std::vector<std::string> names;
  for (const auto& row : experiment.rows) names.push_back(row.name);
  if (!is_one_of(experiment.report_baseline, names))
    throw Error(at(path, e->second) + ": report.baseline: '" + experiment.report_baseline +
                "' is not a row of this spec (rows: " + join(names, ", ") + ")");
}

Experiment parse_experiment(const std::string& path, const YAML::Node& root) {
  if (!root.IsMap()) throw Error(path + ": a spec must be a YAML mapping (experiment, datasets, seeds, model, ...)");
  std::set<int> checked_nodes;
  check_duplicate_keys(path, root, "", checked_nodes);
  check_top_level(path, root);
  Experiment experiment;
  experiment.source_file = path;
  experiment.name = std::filesystem::path(path).stem().string();
  experiment.seeds = {0};
  experiment.seeds_where = path + " (default seeds: 0)";
  if (const auto e = entry_of(path, root, "experiment")) {
    experiment.name = value_text(path, e->first, e->second, "experiment", "a name");
    if (safe_name(experiment.name) != experiment.name || experiment.name.find_first_not_of('.') == std::string::npos)
      throw Error(at(path, e->first) + ": experiment name '" + experiment.name +
                  "' must use only letters, digits, '-', '_' and '.'");
  } else if (safe_name(experiment.name) != experiment.name) {
    throw Error(path + ": the file name '" + experiment.name +
                "' is not a plain folder name; give `experiment: NAME` (letters, digits, '-', '_', '.')");
  }
  if (const auto e = entry_of(path, root, "description"))
    experiment.description = value_text(path, e->first, e->second, "description", "one line of text");
  const auto datasets = entry_of(path, root, "datasets");
  if (!datasets) throw Error(path + ": missing key 'datasets' (a list such as [fashion_mnist])");
  read_datasets(path, datasets->first, datasets->second, experiment.datasets, experiment.dataset_mentions);
  if (const auto e = entry_of(path, root, "seeds")) {
    experiment.seeds_where = at(path, e->first);
    experiment.seeds = parse_seeds(seeds_text(path, e->first, e->second), experiment.seeds_where);
  }
  experiment.base = section_settings(path, root);
  check_settings(experiment.base);
  if (const auto e = entry_of(path, root, "models"))
    read_rows(path, e->first, e->second, experiment);
  else
    experiment.rows.push_back({"model", {}, path});
  if (const auto e = entry_of(path, root, "sweep")) read_sweep(path, e->first, e->second, experiment);
  if (const auto e = entry_of(path, root, "profiles")) read_profiles(path, e->first, e->second, experiment);
  if (const auto e = entry_of(path, root, "per_dataset")) read_per_dataset(path, e->first, e->second, experiment);
  if (const auto e = entry_of(path, root, "report")) read_report(path, e->first, e->second, experiment);
  return experiment;
}

}  // namespace

Experiment load_experiment(const std::string& path) {
  const YAML::Node root = read_yaml(path);
  try {
    return parse_experiment(path, root);
  } catch (const YAML::Exception& e) {  // anything the checks above did not name more precisely
    throw Error(path + ":" + line_of(e.mark) + ": unexpected value: " + e.msg);
  }
}

}  // namespace repro
