#pragma once
// Errors about a node of a YAML file the reports read (the paper's tables, claims and
// protocol ledger): "FILE:LINE: " and its single values.
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <string>
#include <vector>

#include "util/error.h"

namespace repro {

inline std::string yaml_at(const std::filesystem::path& path, const YAML::Node& node) {
  return path.string() + ":" + std::to_string(node.Mark().line + 1) + ": ";
}

// The node's single value; an Error naming FILE:LINE and `what` when it is absent or not a scalar.
inline std::string yaml_scalar(const std::filesystem::path& path, const YAML::Node& node, const std::string& what) {
  if (!node.IsDefined() || !node.IsScalar()) throw Error(yaml_at(path, node) + what + " must be a single value");
  return node.Scalar();
}

// The items of the optional list `key` of a paper file's `root`, each read by `read(node)`: none when absent,
// an Error naming FILE:LINE when it is not a list or an item is malformed.
template <typename Read>
auto yaml_list(const std::filesystem::path& path, const YAML::Node& root, const char* key, Read read) {
  std::vector<decltype(read(root))> items;
  if (!root.IsMap() || !root[key]) return items;
  if (!root[key].IsSequence()) throw Error(yaml_at(path, root[key]) + key + " must be a list");
  try {
    for (const auto& node : root[key]) items.push_back(read(node));
  } catch (const YAML::Exception& e) {
    throw Error(path.string() + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return items;
}

}  // namespace repro
