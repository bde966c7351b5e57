#include "spec/config.h"

#include <cstdlib>

#include "spec/keys.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

Config Config::defaults() {
  Config config;
  for (const auto& def : spec_keys()) config.values_[def.key] = def.default_value;
  return config;
}

void Config::set(const std::string& key, const std::string& raw, const std::string& where) {
  const KeyDef* def = find_key(key);
  if (!def) throw_unknown_key(key, where);
  values_[key] = canonical_value(*def, raw, where);
  explicit_.insert(key);
}

void Config::set_implied(const std::string& key, const std::string& raw) {
  const KeyDef* def = find_key(key);
  if (!def) throw_unknown_key(key, "internal");
  values_[key] = canonical_value(*def, raw, "internal");
}

const std::string& Config::text(const std::string& key) const {
  const auto it = values_.find(key);
  if (it == values_.end()) throw Error("internal: spec key '" + key + "' is not in the table");
  return it->second;
}

int64_t Config::integer(const std::string& key) const { return std::strtoll(text(key).c_str(), nullptr, 10); }

double Config::real(const std::string& key) const {
  if (text(key) == "auto") throw Error("internal: spec key '" + key + "' is still auto (resolve it per dataset first)");
  return std::strtod(text(key).c_str(), nullptr);
}

bool Config::flag(const std::string& key) const { return text(key) == "true"; }

std::pair<double, double> Config::real_pair(const std::string& key) const {
  const std::string& value = text(key);  // canonical "[a, b]"
  const auto parts = split(value.substr(1, value.size() - 2), ',');
  return {std::strtod(parts[0].c_str(), nullptr), std::strtod(parts[1].c_str(), nullptr)};
}

std::vector<std::string> Config::differences(const Config& other) const {
  std::vector<std::string> keys;
  for (const auto& [key, value] : values_) {
    const auto it = other.values_.find(key);
    if (it == other.values_.end() || it->second != value) keys.push_back(key);
  }
  for (const auto& [key, value] : other.values_)
    if (!values_.count(key)) keys.push_back(key);
  return keys;
}

std::string Config::section_text(const std::vector<std::string>& prefixes) const {
  std::string text;
  for (const auto& [key, value] : values_)
    for (const auto& prefix : prefixes)
      if (key.rfind(prefix, 0) == 0) text += key + "=" + value + ";";
  return text;
}

std::string Config::to_yaml(int indent) const {
  return to_yaml(indent, [](const std::string&) { return true; });
}

std::string Config::to_yaml(int indent, const std::function<bool(const std::string&)>& keep) const {
  // Keys are sorted, so a dotted prefix's members are contiguous.
  std::string out;
  std::vector<std::string> open;  // the section path currently open
  for (const auto& [key, value] : values_) {
    if (!keep(key)) continue;
    auto parts = split(key, '.');
    const std::string leaf = parts.back();
    parts.pop_back();
    size_t common = 0;
    while (common < open.size() && common < parts.size() && open[common] == parts[common]) ++common;
    open.resize(common);
    for (size_t i = common; i < parts.size(); ++i) {
      out += std::string(indent + 2 * i, ' ') + parts[i] + ":\n";
      open.push_back(parts[i]);
    }
    out += std::string(indent + 2 * parts.size(), ' ') + leaf + ": " + value + "\n";
  }
  return out;
}

}  // namespace repro
