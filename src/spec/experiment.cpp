#include "spec/experiment.h"

#include <yaml-cpp/depthguard.h>
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
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace {

const std::vector<std::string> kTopLevel = {"experiment", "description", "datasets", "seeds", "models", "sweep",
                                            "profiles",   "per_dataset", "model",    "data",  "text",   "train",
                                            "report"};
const std::vector<std::string> kSections = {"model", "data", "text", "train"};

bool is_one_of(const std::string& word, const std::vector<std::string>& words) {
  for (const auto& w : words)
    if (w == word) return true;
  return false;
}

std::string line_of(const YAML::Mark& mark) { return std::to_string(mark.line + 1); }

// "file:line" of a node; just the file for nodes without a position (absent or empty values).
std::string at(const std::string& file, const YAML::Node& node) {
  if (!node.IsDefined() || node.Mark().is_null()) return file;
  return file + ":" + line_of(node.Mark());
}

std::string kind_of(const YAML::Node& node) {
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a mapping";
  if (node.IsNull()) return "no value";
  return "'" + node.Scalar() + "'";
}

// A mapping key as text: keys must be plain names, not lists or mappings.
std::string key_text(const std::string& file, const YAML::Node& key) {
  if (!key.IsScalar()) throw Error(at(file, key) + ": a key must be a plain name, got " + kind_of(key));
  return key.Scalar();
}

// A scalar value as text; a list, mapping or missing value is an error naming the key and what was expected.
std::string value_text(const std::string& file, const YAML::Node& key_node, const YAML::Node& value,
                       const std::string& key, const std::string& expected) {
  if (value.IsScalar()) return value.Scalar();
  throw Error(at(file, key_node) + ": '" + key + "': got " + kind_of(value) + ", expected " + expected);
}

// The entry of `map` named `key` as {key node, value node}; nullopt when absent.
std::optional<std::pair<YAML::Node, YAML::Node>> entry_of(const std::string& file, const YAML::Node& map,
                                                          const std::string& key) {
  for (const auto& entry : map)
    if (key_text(file, entry.first) == key) return std::make_pair(entry.first, entry.second);
  return std::nullopt;
}

// YAML keeps both entries of a key given twice in one mapping (a second `train:` block, `dim` twice) and
// lookups see only one of them: every mapping of the document must name each key once.
// Aliases (*name) share their anchor's node: each list or mapping is checked once (by its position in the
// file), so an alias bomb costs its length in the file, not its expansion (docs/reliability.md).
void check_duplicate_keys(const std::string& file, const YAML::Node& node, const std::string& path,
                          std::set<int>& checked) {
  if ((node.IsSequence() || node.IsMap()) && !checked.insert(node.Mark().pos).second) return;
  if (node.IsSequence()) {
    for (size_t i = 0; i < node.size(); ++i)
      check_duplicate_keys(file, node[i], path + "[" + std::to_string(i) + "]", checked);
    return;
  }
  if (!node.IsMap()) return;
  std::map<std::string, YAML::Mark> seen;
  for (const auto& entry : node) {
    const std::string key = key_text(file, entry.first);
    const std::string full = path.empty() ? key : path + "." + key;
    const auto [first, fresh] = seen.emplace(key, entry.first.Mark());
    if (!fresh)
      throw Error(at(file, entry.first) + ": duplicate key '" + full + "' (first at " + file + ":" +
                  line_of(first->second) + "); give each key once");
    check_duplicate_keys(file, entry.second, full, checked);
  }
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
  if (text.empty() || text.size() > 6 || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
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

// A name that becomes a folder: not empty and not "." or ".." once made safe; one line without control characters
// (a newline broke the log line and the Markdown table).
void check_folder_name(const std::string& name, const std::string& where, const std::string& what) {
  const auto control =
      std::find_if(name.begin(), name.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
  if (control != name.end()) {
    char code[8];
    std::snprintf(code, sizeof code, "0x%02x", static_cast<unsigned>(static_cast<unsigned char>(*control)));
    throw Error(where + ": " + what + " '" + safe_name(name) + "' (as a folder) holds the control character " + code +
                " at byte " + std::to_string(control - name.begin()) +
                " (a newline or tab in a YAML string); a name is one line of printable characters");
  }
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

YAML::Node read_yaml(const std::string& path) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (!std::filesystem::exists(status)) throw Error(path + ": spec file not found");
  if (std::filesystem::is_directory(status)) throw Error(path + ": is a directory; expected a spec file (YAML)");
  // A FIFO, a device (/dev/zero, /dev/urandom) or a huge file is refused before a byte is read.
  const std::string text = read_regular_file(path, kSpecBytes, "a spec file (YAML)");
  if (const auto nul = text.find('\0'); nul != std::string::npos) {  // yaml-cpp would read past it into nonsense
    const auto line = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(nul), '\n') + 1;
    const auto line_start = text.rfind('\n', nul);
    const auto column = nul - (line_start == std::string::npos ? 0 : line_start + 1) + 1;
    throw Error(path + ":" + std::to_string(line) + ": a NUL byte (\\0) at column " + std::to_string(column) +
                "; a spec is YAML text (a binary file, or a file cut while written?)");
  }
  try {
    return YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's mark may lie past the last line (its scanner reads ahead): the line is clamped to the file's last.
    const auto lines = std::count(text.begin(), text.end(), '\n') + (text.empty() || text.back() == '\n' ? 0 : 1);
    const auto line = std::min<std::ptrdiff_t>(e.mark.line + 1, std::max<std::ptrdiff_t>(lines, 1));
    throw Error(path + ":" + std::to_string(line) + ": nested too deeply (more than " + std::to_string(e.depth()) +
                " levels of mappings or lists, at or before this line); a spec needs a few");
  } catch (const YAML::Exception& e) {
    throw Error(path + ":" + line_of(e.mark) + ": invalid YAML: " + e.msg);
  }
}

// `report: {baseline: ROW}`; ROW must name one of the rows (`models:`).
void read_report(const std::string& path, const YAML::Node& key_node, const YAML::Node& node, Experiment& experiment) {
  if (!node.IsMap()) throw Error(at(path, key_node) + ": 'report': got " + kind_of(node) + ", expected {baseline: ROW}");
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

std::vector<int64_t> parse_seeds(const std::string& text, const std::string& where) {
  if (trim(text).empty())
    throw Error(where + ": seeds: got '" + text + "', expected at least one seed, e.g. 0-4 or 0,1,2");
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

namespace {

// A top-level field of a spec tried as KEY=VALUE or --set KEY=...: where it goes instead.
void refuse_spec_field(const std::string& key, const std::string& where) {
  static const std::map<std::string, std::string> instead = {
      {"seeds", "give seeds with repro sweep SPEC --seeds 0-4 (or the spec's or a profile's `seeds:`)"},
      {"datasets", "choose columns with --datasets NAME,... (or the spec's or a profile's `datasets:`)"},
      {"models", "choose rows with --rows NAME,... (or the spec's `models:`)"},
      {"profile", "choose a profile with --profile NAME"},
      {"experiment", "the experiment's name is the spec's `experiment:`"}};
  if (const auto it = instead.find(key); it != instead.end())
    throw Error(where + ": '" + key + "' is a part of the spec, not a setting: " + it->second);
}

}  // namespace

Setting parse_override(const std::string& argument) {
  const auto eq = argument.find('=');
  const std::string where = "override '" + argument + "'";
  if (eq == std::string::npos || eq == 0) throw Error(where + ": expected KEY=VALUE, e.g. train.epochs=5");
  Setting setting{trim(argument.substr(0, eq)), trim(argument.substr(eq + 1)), where};
  refuse_spec_field(setting.key, where);
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
  refuse_spec_field(axis.key, axis.where);
  const KeyDef* def = find_key(axis.key);
  if (!def) throw_unknown_key(axis.key, axis.where);
  std::string values = trim(whole.raw);
  // train.lr=[1e-3,3e-3]: brackets around the axis itself, as in YAML, for a key whose value is not a list.
  if (def->type != ValueType::FloatPair && values.size() >= 2 && values.front() == '[' && values.back() == ']' &&
      split_top_level(values, ',').size() == 1)
    values = values.substr(1, values.size() - 2);
  Config probe = Config::defaults();
  for (const auto& value : split_top_level(values, ',')) {
    probe.set(axis.key, value, axis.where);
    axis.values.push_back(trim(value));
  }
  return axis;
}

Experiment load_experiment(const std::string& path) {
  const YAML::Node root = read_yaml(path);
  try {
    return parse_experiment(path, root);
  } catch (const YAML::Exception& e) {  // anything the checks above did not name more precisely
    throw Error(path + ":" + line_of(e.mark) + ": unexpected value: " + e.msg);
  }
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
  if (!chosen.seeds.empty()) {
    seeds = chosen.seeds;
    seeds_where = chosen.seeds_where;
  }
}

namespace {

// The names of `given` (a comma list was split by the CLI), each checked against `known`; duplicates dropped.
std::vector<std::string> checked_names(const std::vector<std::string>& given, const std::vector<std::string>& known,
                                       const std::string& option, const std::string& what) {
  std::vector<std::string> out;
  for (const auto& raw : given) {
    const std::string name = trim(raw);
    if (name.empty()) throw Error(option + ": an empty name; expected " + what + ": " + join(known, ", "));
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      const std::string guess = closest_match(name, known);
      throw Error(option + " '" + name + "': not one of " + what + " (" + join(known, ", ") + ")" +
                  (guess.empty() ? "" : "; did you mean '" + guess + "'?"));
    }
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

}  // namespace

void Experiment::select(const std::vector<std::string>& wanted_datasets, const std::vector<std::string>& wanted_rows) {
  const std::string of = "the " + folder() + " grid";
  selected_datasets = checked_names(wanted_datasets, datasets, "--datasets", "the datasets of " + of);
  std::vector<std::string> row_names;
  for (const auto& row : rows) row_names.push_back(row.name);
  selected_rows = checked_names(wanted_rows, row_names, "--rows", "the rows (model configurations) of " + of);
}

bool Experiment::dataset_selected(const std::string& dataset) const {
  return selected_datasets.empty() ||
         std::find(selected_datasets.begin(), selected_datasets.end(), dataset) != selected_datasets.end();
}

bool Experiment::row_selected(const std::string& row_name) const {
  return selected_rows.empty() ||
         std::find(selected_rows.begin(), selected_rows.end(), row_name) != selected_rows.end();
}

bool Experiment::seed_selected(int64_t seed) const {
  return !seeds_selected || std::find(seeds.begin(), seeds.end(), seed) != seeds.end();
}

}  // namespace repro
