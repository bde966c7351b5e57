// The parts of an experiment given on the command line: seed lists, KEY=VALUE overrides, --set axes, the
// chosen profile and the --datasets / --rows selection (declared in spec/experiment.h).
#include <algorithm>
#include <map>

#include "spec/config.h"
#include "spec/experiment.h"
#include "spec/keys.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

namespace {

// The seeds one range may cover (0-10000): a grid of more runs is a typo, not a plan.
constexpr int64_t kMostSeedsInRange = 10001;

}  // namespace

std::vector<int64_t> parse_seeds(const std::string& text, const std::string& where) {
  if (trim(text).empty())
    throw Error(where + ": seeds: got '" + text + "', expected at least one seed, e.g. 0-4 or 0,1,2");
  std::vector<int64_t> seeds;
  for (const auto& part_raw : split(text, ',')) {
    const std::string part = trim(part_raw);
    const auto dash = part.find('-', 1);
    const auto refuse = [&](const std::string& why) {
      throw Error(where + ": seeds: got '" + escaped(text) + "': " + why);
    };
    int64_t first = 0, last = 0;
    try {
      size_t used = 0;
      first = std::stoll(part.substr(0, dash), &used);
      if (used != part.substr(0, dash).size()) throw std::invalid_argument(part);
      if (dash != std::string::npos) {
        last = std::stoll(part.substr(dash + 1), &used);
        if (used != part.size() - dash - 1) throw std::invalid_argument(part);
      }
    } catch (const std::out_of_range&) {
      refuse("'" + escaped(part) + "' is beyond the largest seed, 9223372036854775807");
    } catch (const std::exception&) {
      refuse("expected a list like 0-4 or 0,1,2 of non-negative integers");
    }
    if (dash == std::string::npos) {
      seeds.push_back(first);
      continue;
    }
    if (first < 0) refuse("seeds must be non-negative, got " + std::to_string(first));
    if (last < first) refuse("the range '" + part + "' ends before it begins");
    if (last - first >= kMostSeedsInRange)
      refuse("the range '" + part + "' holds " + std::to_string(last - first + 1) + " seeds; a range holds at most " +
             std::to_string(kMostSeedsInRange) + " (e.g. 0-10000)");
    for (int64_t s = first; s <= last; ++s) seeds.push_back(s);
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
      throw Error(option + " '" + escaped(name) + "': not one of " + what + " (" + join(known, ", ") + ")" +
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
