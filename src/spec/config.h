#pragma once
// A fully resolved set of spec values: every key of the table, each held as its
// validated canonical text, with typed getters.
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace repro {

class Config {
 public:
  static Config defaults();

  // Validates and sets one key; `where` names the source for error messages.
  void set(const std::string& key, const std::string& raw, const std::string& where);

  // Sets a value that does not count as given by the user (presets, resolved "auto").
  void set_implied(const std::string& key, const std::string& raw);
  bool is_explicit(const std::string& key) const { return explicit_.count(key) > 0; }

  const std::string& text(const std::string& key) const;
  int64_t integer(const std::string& key) const;
  double real(const std::string& key) const;
  bool flag(const std::string& key) const;
  std::pair<double, double> real_pair(const std::string& key) const;

  const std::map<std::string, std::string>& values() const { return values_; }
  // Keys whose values differ from `other` (for "spec changed" errors).
  std::vector<std::string> differences(const Config& other) const;
  // "key=value;..." of every key in the sections `prefixes` (e.g. {"data.", "text."}):
  // what a cache of prepared data is keyed by.
  std::string section_text(const std::vector<std::string>& prefixes) const;
  // Nested YAML of every key (sections model/data/train) at `indent` spaces.
  std::string to_yaml(int indent = 0) const;
  // Only the keys `keep` accepts.
  std::string to_yaml(int indent, const std::function<bool(const std::string&)>& keep) const;

 private:
  std::map<std::string, std::string> values_;
  std::set<std::string> explicit_;  // keys set by the spec or the command line
};

}  // namespace repro
