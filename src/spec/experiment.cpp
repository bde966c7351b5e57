#include "spec/experiment.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <set>

#include "data/registry.h"
#include "spec/config.h"
#include "spec/keys.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

namespace {

const std::vector<std::string> kTopLevel = {"experiment", "description", "datasets", "seeds", "models", "sweep",
                                            "profiles",   "per_dataset", "model",    "data",  "text",   "train"};
const std::vector<std::string> kSections = {"model", "data", "text", "train"};

std::string at(const std::string& file, const YAML::Node& node) {
  return file + ":" + std::to_string(node.Mark().line + 1);
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
    const std::string key = prefix + entry.first.as<std::string>();
    if (!entry.second.IsMap()) {
      add_scalar(file, key, entry.first, entry.second, out);
      continue;
    }
    if (!is_section(key)) {  // report the misspelt level itself, with the nearest full key
      std::string nearest = key;
      if (entry.second.size() > 0) nearest += "." + entry.second.begin()->first.as<std::string>();
      throw_unknown_key(nearest, at(file, entry.first));
    }
    flatten(file, entry.second, key + ".", out);
  }
}

void check_sections(const std::string& file, const YAML::Node& node, const std::string& context) {
  for (const auto& entry : node) {
    const std::string key = entry.first.as<std::string>();
    const std::string head = split(key, '.')[0];
    bool known = false;
    for (const auto& section : kSections) known |= head == section;
    if (known && (entry.second.IsMap() || key.find('.') != std::string::npos)) continue;
    if (known) throw Error(at(file, entry.first) + ": '" + key + "' in " + context + " must be a mapping of keys");
    if (key == "name") continue;
    const std::string guess = closest_match(key, kSections);
    throw Error(at(file, entry.first) + ": unknown key '" + key + "' in " + context +
                (guess.empty() ? "; expected name, model, data, text or train" : "; did you mean '" + guess + "'?"));
  }
}

// Settings of the model/data/train entries of `node` (other keys are skipped).
std::vector<Setting> section_settings(const std::string& file, const YAML::Node& node) {
  std::vector<Setting> settings;
  for (const auto& entry : node) {
    const std::string key = entry.first.as<std::string>();
    bool section = false;
    for (const auto& s : kSections) section |= split(key, '.')[0] == s;
    if (!section) continue;
    if (entry.second.IsMap())
      flatten(file, entry.second, key + ".", settings);
    else
      add_scalar(file, key, entry.first, entry.second, settings);
  }
  return settings;
}

std::string seeds_text(const YAML::Node& node) {
  if (!node.IsSequence()) return node.Scalar();
  std::vector<std::string> items;
  for (const auto& item : node) items.push_back(item.IsScalar() ? item.Scalar() : "?");
  return join(items, ",");
}

void check_settings(const std::vector<Setting>& settings) {
  Config probe = Config::defaults();
  for (const auto& s : settings) probe.set(s.key, s.raw, s.where);
}

void read_rows(const std::string& file, const YAML::Node& models, Experiment& experiment) {
  if (!models.IsSequence())
    throw Error(at(file, models) + ": 'models' must be a list of {name: ..., model/data/train: ...}");
  std::set<std::string> names;
  for (const auto& row_node : models) {
    if (!row_node.IsMap() || !row_node["name"])
      throw Error(at(file, row_node) + ": each entry of 'models' needs a 'name'");
    ModelRow row;
    row.name = row_node["name"].as<std::string>();
    if (!names.insert(row.name).second) throw Error(at(file, row_node) + ": duplicate model name '" + row.name + "'");
    check_sections(file, row_node, "a 'models' entry");
    row.settings = section_settings(file, row_node);
    check_settings(row.settings);
    experiment.rows.push_back(row);
  }
}

void read_datasets(const std::string& file, const YAML::Node& node, Experiment& experiment) {
  const auto names = dataset_names();
  std::vector<YAML::Node> items;
  if (node.IsScalar())
    items.push_back(node);
  else if (node.IsSequence())
    for (const auto& item : node) items.push_back(item);
  else
    throw Error(at(file, node) + ": 'datasets' must be a list of dataset names");
  for (const auto& item : items) {
    const std::string name = item.as<std::string>();
    bool known = false;
    for (const auto& candidate : names) known |= candidate == name;
    if (!known) {
      const std::string guess = closest_match(name, names);
      throw Error(at(file, item) + ": unknown dataset '" + name + "'; expected one of " + join(names, " | ") +
                  (guess.empty() ? "" : "; did you mean '" + guess + "'?"));
    }
    experiment.datasets.push_back(name);
  }
}

void read_sweep(const std::string& file, const YAML::Node& node, Experiment& experiment) {
  if (!node.IsMap()) throw Error(at(file, node) + ": 'sweep' must map keys to lists of values");
  for (const auto& entry : node) {
    SweepAxis axis;
    axis.key = entry.first.as<std::string>();
    axis.where = at(file, entry.first);
    if (!find_key(axis.key)) throw_unknown_key(axis.key, axis.where);
    if (!entry.second.IsSequence() || entry.second.size() == 0)
      throw Error(axis.where + ": sweep axis '" + axis.key + "' needs a non-empty list of values");
    for (const auto& value : entry.second) axis.values.push_back(scalar_text(value));
    Config probe = Config::defaults();
    for (const auto& value : axis.values) probe.set(axis.key, value, axis.where);
    experiment.axes.push_back(axis);
  }
}

void read_profiles(const std::string& file, const YAML::Node& node, Experiment& experiment) {
  if (!node.IsMap()) throw Error(at(file, node) + ": 'profiles' must map profile names to settings");
  for (const auto& entry : node) {
    const std::string name = entry.first.as<std::string>();
    if (safe_name(name) != name)
      throw Error(at(file, entry.first) + ": profile name '" + name + "' must be a plain word");
    if (!entry.second.IsMap())
      throw Error(at(file, entry.first) + ": profile '" + name + "' must be a mapping of settings");
    Experiment::Profile profile;
    for (const auto& item : entry.second) {
      const std::string key = item.first.as<std::string>();
      if (key == "datasets") {
        Experiment scratch;
        read_datasets(file, item.second, scratch);
        profile.datasets = scratch.datasets;
      } else if (key == "seeds") {
        profile.seeds = parse_seeds(seeds_text(item.second), at(file, item.second));
      } else if (item.second.IsMap()) {
        flatten(file, item.second, key + ".", profile.settings);
      } else {
        add_scalar(file, key, item.first, item.second, profile.settings);
      }
    }
    check_settings(profile.settings);
    experiment.profiles[name] = profile;
  }
}

void read_per_dataset(const std::string& file, const YAML::Node& node, Experiment& experiment) {
  if (!node.IsMap()) throw Error(at(file, node) + ": 'per_dataset' must map dataset names to settings");
  for (const auto& entry : node) {
    Experiment scratch;
    read_datasets(file, entry.first, scratch);
    std::vector<Setting> settings;
    flatten(file, entry.second, "", settings);
    check_settings(settings);
    experiment.per_dataset[scratch.datasets[0]] = settings;
  }
}

}  // namespace

std::vector<int64_t> parse_seeds(const std::string& text, const std::string& where) {
  std::vector<int64_t> seeds;
  for (const auto& part_raw : split(text, ',')) {
    const std::string part = trim(part_raw);
    const auto dash = part.find('-', 1);
    try {
      size_t used = 0;
      if (dash == std::string::npos) {
        seeds.push_back(std::stoll(part, &used));
        if (used != part.size()) throw std::invalid_argument(part);
      } else {
        const int64_t first = std::stoll(part.substr(0, dash));
        const int64_t last = std::stoll(part.substr(dash + 1), &used);
        if (used != part.size() - dash - 1 || last < first || last - first > 10000) throw std::invalid_argument(part);
        for (int64_t s = first; s <= last; ++s) seeds.push_back(s);
      }
    } catch (const std::exception&) {
      throw Error(where + ": seeds: got '" + text + "', expected a list like 0-4 or 0,1,2 of non-negative integers");
    }
  }
  for (auto s : seeds)
    if (s < 0) throw Error(where + ": seeds must be non-negative, got " + std::to_string(s));
  return seeds;
}

Setting parse_override(const std::string& argument) {
  const auto eq = argument.find('=');
  const std::string where = "override '" + argument + "'";
  if (eq == std::string::npos || eq == 0) throw Error(where + ": expected KEY=VALUE, e.g. train.epochs=5");
  Setting setting{trim(argument.substr(0, eq)), trim(argument.substr(eq + 1)), where};
  Config probe = Config::defaults();
  probe.set(setting.key, setting.raw, where);
  return setting;
}

SweepAxis parse_axis(const std::string& argument) {
  const Setting whole = [&] {
    const auto eq = argument.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error("--set '" + argument + "': expected KEY=V1,V2,..., e.g. model.ffn.ratio=2,4");
    return Setting{trim(argument.substr(0, eq)), argument.substr(eq + 1), "--set '" + argument + "'"};
  }();
  SweepAxis axis{whole.key, {}, whole.where};
  if (!find_key(axis.key)) throw_unknown_key(axis.key, axis.where);
  Config probe = Config::defaults();
  for (const auto& value : split_top_level(whole.raw, ',')) {
    probe.set(axis.key, value, axis.where);
    axis.values.push_back(trim(value));
  }
  return axis;
}

Experiment load_experiment(const std::string& path) {
  if (!std::filesystem::exists(path)) throw Error(path + ": spec file not found");
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    throw Error(path + ":" + std::to_string(e.mark.line + 1) + ": invalid YAML: " + e.msg);
  }
  if (!root.IsMap()) throw Error(path + ": a spec must be a YAML mapping (experiment, datasets, seeds, model, ...)");
  Experiment experiment;
  experiment.source_file = path;
  experiment.name = std::filesystem::path(path).stem().string();
  experiment.seeds = {0};
  for (const auto& entry : root) {
    const std::string key = entry.first.as<std::string>();
    bool known = false;
    for (const auto& k : kTopLevel) known |= k == key || k == split(key, '.')[0];
    if (!known) {
      const std::string guess = closest_match(key, kTopLevel);
      throw Error(at(path, entry.first) + ": unknown top-level key '" + key + "'" +
                  (guess.empty() ? "; expected one of " + join(kTopLevel, ", ") : "; did you mean '" + guess + "'?"));
    }
  }
  if (root["experiment"]) experiment.name = root["experiment"].as<std::string>();
  if (safe_name(experiment.name) != experiment.name || experiment.name.empty())
    throw Error(at(path, root["experiment"]) + ": experiment name '" + experiment.name +
                "' must use only letters, digits, '-', '_' and '.'");
  if (root["description"]) experiment.description = root["description"].as<std::string>();
  if (!root["datasets"]) throw Error(path + ": missing key 'datasets' (a list such as [fashion_mnist])");
  read_datasets(path, root["datasets"], experiment);
  if (root["seeds"]) experiment.seeds = parse_seeds(seeds_text(root["seeds"]), at(path, root["seeds"]));
  for (const auto& entry : root) {
    const std::string key = entry.first.as<std::string>();
    for (const auto& section : kSections)
      if (key == section && !entry.second.IsMap())
        throw Error(at(path, entry.first) + ": '" + key + "' must be a mapping of keys");
  }
  experiment.base = section_settings(path, root);
  check_settings(experiment.base);
  if (root["models"])
    read_rows(path, root["models"], experiment);
  else
    experiment.rows.push_back({"model", {}});
  if (root["sweep"]) read_sweep(path, root["sweep"], experiment);
  if (root["profiles"]) read_profiles(path, root["profiles"], experiment);
  if (root["per_dataset"]) read_per_dataset(path, root["per_dataset"], experiment);
  return experiment;
}

void Experiment::choose_profile(const std::string& wanted) {
  if (wanted.empty()) return;
  if (!profiles.count(wanted)) {
    std::vector<std::string> names;
    for (const auto& [n, settings] : profiles) names.push_back(n);
    throw Error("--profile " + wanted + ": " + source_file + " defines " +
                (names.empty() ? std::string("no profiles") : "the profiles " + join(names, ", ")));
  }
  profile = wanted;
  const Profile& chosen = profiles.at(wanted);
  if (!chosen.datasets.empty()) datasets = chosen.datasets;
  if (!chosen.seeds.empty()) seeds = chosen.seeds;
}

}  // namespace repro
