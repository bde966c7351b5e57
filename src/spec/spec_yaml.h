#pragma once
// Reading a spec's YAML: the file read with its bounds and checks, nodes named by "file:line", keys and scalar
// values as text with one-line errors, and every mapping's keys checked to be given once. Shared by the spec
// reader (spec/experiment.cpp); yaml-cpp's types stay behind it.
#include <yaml-cpp/yaml.h>

#include <optional>
#include <set>
#include <string>
#include <utility>

namespace repro::spec_yaml {

// The spec file at `path` parsed: refused with one line when it is missing, a folder, not a regular file, over
// kSpecBytes, holds a NUL byte, nests too deeply or is not YAML.
YAML::Node read_yaml(const std::string& path);

// The 1-based line of a mark, as text.
std::string line_of(const YAML::Mark& mark);
// "file:line" of a node; just the file for nodes without a position (absent or empty values).
std::string at(const std::string& file, const YAML::Node& node);
// "a list", "a mapping", "no value" or the scalar quoted: what a value is, for errors.
std::string kind_of(const YAML::Node& node);
// A mapping key as text: keys must be plain names, not lists or mappings.
std::string key_text(const std::string& file, const YAML::Node& key);
// A scalar value as text; a list, mapping or missing value is an error naming the key and what was expected.
std::string value_text(const std::string& file, const YAML::Node& key_node, const YAML::Node& value,
                       const std::string& key, const std::string& expected);
// The entry of `map` named `key` as {key node, value node}; nullopt when absent.
std::optional<std::pair<YAML::Node, YAML::Node>> entry_of(const std::string& file, const YAML::Node& map,
                                                          const std::string& key);
// YAML keeps both entries of a key given twice in one mapping (a second `train:` block, `dim` twice) and
// lookups see only one of them: every mapping of the document must name each key once.
// Aliases (*name) share their anchor's node: each list or mapping is checked once (by its position in the
// file), so an alias bomb costs its length in the file, not its expansion (docs/reliability.md).
void check_duplicate_keys(const std::string& file, const YAML::Node& node, const std::string& path,
                          std::set<int>& checked);

}  // namespace repro::spec_yaml
