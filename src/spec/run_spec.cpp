#include "spec/run_spec.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "record/run_id_fields.h"
#include "spec/keys.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace fs = std::filesystem;

namespace {

// A number as the key table writes it: "3e-4" and "0.0003" are one learning rate (the defaults of
// train.lr, train.eps and model.norm_eps were spelled so in records written before 0.8).
std::string canonical_setting(const std::string& key, const std::string& value) {
  const KeyDef* def = find_key(key);
  if (!def || (def->type != ValueType::Int && def->type != ValueType::Float)) return value;
  try {
    return canonical_value(*def, value, key);
  } catch (const Error&) {
    return value;  // not a number of its range: compared as written
  }
}

void flatten_yaml(const YAML::Node& node, const std::string& prefix, std::map<std::string, std::string>& out) {
  for (const auto& entry : node) {
    const std::string key = prefix + entry.first.as<std::string>();
    if (entry.second.IsMap())
      flatten_yaml(entry.second, key + ".", out);
    else
      out[key] = canonical_setting(key, YAML::Dump(entry.second));
  }
}

// Every key whose resolved value differs between two spec texts.
std::vector<SettingChange> changed_keys(const std::string& before, const std::string& after) {
  std::map<std::string, std::string> a, b;
  flatten_yaml(YAML::Load(before), "", a);
  flatten_yaml(YAML::Load(after), "", b);
  std::vector<SettingChange> changes;
  // Keys added to repro after the existing run was planned are absent from its file; at the value the run
  // ran with (the default, or the key's when_absent) they do not change the run (its records stay valid and it
  // can be resumed or skipped).
  std::map<std::string, std::string> defaults;
  flatten_yaml(YAML::Load(Config::defaults().to_yaml()), "", defaults);
  for (const auto& [key, value] : b) {
    const auto it = a.find(key);
    const KeyDef* def = find_key(key);
    if (it == a.end() && def && !def->when_absent.empty()) {
      if (def->when_absent != value) changes.push_back({key, def->when_absent, value, /*before_absent=*/true});
      continue;
    }
    if (it == a.end() && defaults.count(key) && defaults.at(key) == value) continue;
    if (it == a.end())
      changes.push_back({key, "", value, /*before_absent=*/true});
    else if (it->second != value)
      changes.push_back({key, it->second, value});
  }
  // A key of the table absent after is one that run does not read (spec.resolved.yaml lists only those since
  // 0.8.0, spec/grid.h: unread_because): whatever an earlier record says of it did not change its training. A key
  // the table no longer has is a change.
  for (const auto& [key, value] : a)
    if (!b.count(key) && !find_key(key)) changes.push_back({key, value, "", /*before_absent=*/false, /*after_absent=*/true});
  return changes;
}

bool is_noise_key(const std::string& key) { return starts_with(key, "data.noise."); }

}  // namespace

RunSpec read_run_spec(const fs::path& path) {
  if (!fs::exists(path)) throw Error(path.string() + ": no such file (the run's resolved spec)");
  return parse_run_spec(read_regular_file(path, kSpecBytes, "a run's spec.resolved.yaml"), path.string());
}

RunSpec parse_run_spec(const std::string& text, const std::string& source) {
  RunSpec spec;
  spec.config = Config::defaults();
  std::set<std::string> given;    // the keys the text holds
  std::vector<std::string> open;  // the section path at the current depth
  const auto lines = split_lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    const std::string where = source + ":" + std::to_string(i + 1);
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    const size_t indent = line.find_first_not_of(' ');
    if (indent % 2 != 0 || indent / 2 > open.size()) throw Error(where + ": unexpected indentation");
    open.resize(indent / 2);
    const std::string body = trim(line.substr(indent));
    const std::string prefix = open.empty() ? "" : join(open, ".") + ".";
    if (body.back() == ':' && !find_key(prefix + body.substr(0, body.size() - 1))) {
      open.push_back(body.substr(0, body.size() - 1));  // a section
      continue;
    }
    const auto colon = body.find(':');
    if (colon == std::string::npos) throw Error(where + ": expected 'key: value'");
    const std::string leaf = body.substr(0, colon), value = trim(body.substr(colon + 1));
    if (open.empty())
      read_run_id_line(spec, leaf, value, where);
    else if (!find_key(prefix + leaf) || spec.config.text(prefix + leaf) != value)  // defaults stay as written
      spec.config.set(prefix + leaf, value, where);
    given.insert(prefix + leaf);
  }
  for (const auto& def : spec_keys())  // a key added with a new behaviour: a file without it ran as before
    if (!def.when_absent.empty() && !given.count(def.key)) spec.config.set_implied(def.key, def.when_absent);
  if (spec.dataset.empty() || spec.experiment.empty())
    throw Error(source + ": no 'experiment' or 'dataset' line (not a spec.resolved.yaml of repro)");
  return spec;
}

std::string SettingChange::text() const {
  if (!problem.empty()) return problem;
  const auto side = [](const std::string& value, bool absent) {
    if (!absent) return value;
    return value.empty() ? std::string("(absent)") : "(absent: ran as " + value + ")";
  };
  return key + ": " + side(before, before_absent) + " -> " + side(after, after_absent);
}

std::string changes_text(const std::vector<SettingChange>& changes, size_t most) {
  std::vector<std::string> shown;
  for (size_t i = 0; i < changes.size() && i < most; ++i) shown.push_back(changes[i].text());
  return join(shown, "; ");
}

const std::vector<std::string>& eval_override_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> names;
    for (const KeyDef& def : spec_keys())
      if (def.eval_may_override) names.push_back(def.key);
    return names;
  }();
  return keys;
}

std::string eval_override_summary() {
  const auto& keys = eval_override_keys();
  const auto section_of = [](const std::string& key) { return key.substr(0, key.rfind('.') + 1); };
  const auto whole_section = [&](const std::string& section) {
    int in_table = 0;
    for (const KeyDef& def : spec_keys())
      if (starts_with(def.key, section)) {
        ++in_table;
        if (!def.eval_may_override || section_of(def.key) != section) return false;
      }
    return in_table > 1;
  };
  std::vector<std::string> shown;
  for (const std::string& key : keys) {
    const std::string section = section_of(key);
    const std::string item = whole_section(section) ? section + "*" : key;
    if (std::find(shown.begin(), shown.end(), item) == shown.end()) shown.push_back(item);
  }
  return join(shown, ", ");
}

void check_eval_request(EvalRequest& request) {
  if (request.split != "test" && request.split != "val")
    throw Error("--split: got '" + request.split + "', expected test or val");
  std::vector<Setting> all = request.overrides;
  if (!request.levels.key.empty()) all.push_back({request.levels.key, "", request.levels.where});
  const auto& allowed = eval_override_keys();
  for (size_t i = 0; i < all.size(); ++i) {
    const Setting& s = all[i];
    if (std::find(allowed.begin(), allowed.end(), s.key) == allowed.end())
      throw Error(s.where + ": key '" + s.key + "' cannot change in an evaluation (the model and its training are " +
                  "the run's); expected one of " + join(allowed, ", "));
    for (size_t j = 0; j < i; ++j)
      if (all[j].key == s.key)
        throw Error(s.where + ": key '" + s.key + "' is given twice (also " + all[j].where + ")");
    if (is_noise_key(s.key) && request.split == "val")
      throw Error(s.where + ": noise is added to the train and test splits only; evaluate noise with --split test");
  }
  if (request.name.empty()) {
    if (!all.empty())
      throw Error("give --name NAME for an evaluation with changed settings (it is written to eval/NAME.json)");
    request.name = request.split;
  }
  if (!std::regex_match(request.name, std::regex("[A-Za-z0-9][A-Za-z0-9._-]*")))
    throw Error("--name: got '" + request.name + "', expected letters, digits, '.', '_' or '-' (a file name)");
}

std::vector<std::vector<Setting>> eval_points(const EvalRequest& request) {
  std::vector<Setting> base = request.overrides;
  const auto given = [&](const std::string& key) {
    return request.levels.key == key ||
           std::any_of(base.begin(), base.end(), [&](const Setting& s) { return s.key == key; });
  };
  const bool noise = is_noise_key(request.levels.key) ||
                     std::any_of(base.begin(), base.end(), [](const Setting& s) { return is_noise_key(s.key); });
  if (noise && !given("data.noise.split"))
    base.push_back({"data.noise.split", request.split, "--split (noise on the evaluated split)"});
  if (request.levels.key.empty()) return {base};
  std::vector<std::vector<Setting>> points;
  for (const auto& value : request.levels.values) {
    points.push_back(base);
    points.back().push_back({request.levels.key, value, request.levels.where});
  }
  return points;
}

std::vector<SettingChange> changed_settings(const std::string& before, const std::string& after) {
  try {
    return changed_keys(before, after);
  } catch (const YAML::Exception& e) {
    SettingChange unreadable;
    unreadable.problem = "its spec.resolved.yaml is not valid YAML: " + e.msg;
    return {unreadable};
  }
}

std::vector<SettingChange> setting_differences(const std::string& before, const std::string& after,
                                               bool ignore_by_design) {
  std::vector<SettingChange> out;
  for (const auto& change : changed_settings(before, after)) {
    if (is_run_id_field(change.key)) continue;  // the header: the run's identity, not a setting
    const KeyDef* def = find_key(change.key);
    if (ignore_by_design && def && def->differs_by_design) continue;
    out.push_back(change);
  }
  return out;
}

std::string keep_both_advice(const std::vector<SettingChange>& changes) {
  std::string text;
  std::vector<std::string> axes;  // the new values as "--set key=new"
  bool epochs = false;
  for (const auto& change : changes) {
    if (!change.problem.empty() || (change.before_absent && change.before.empty()) || change.after_absent) continue;
    epochs |= change.key == "train.epochs";
    if (find_key(change.key)) axes.push_back("--set " + change.key + "=" + change.after);
  }
  if (!axes.empty())
    text += "To keep both, train the new values as rows of their own beside these: repro sweep with " +
            join(axes, " ") + " (one-value axes: the rows are named '<row>+<key>=<value>', in the same table)" +
            "; or give another --out.";
  else
    text += "Use another --out, another experiment name, or move that folder.";
  if (epochs)
    text +=
        " A finished run is not extended to more epochs: its learning-rate schedule and selected epoch depend "
        "on train.epochs, so a longer run is another run.";
  return text;
}

}  // namespace repro
