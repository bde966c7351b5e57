#pragma once
// Errors about a node of a YAML file the reports read (the paper's tables, claims and
// protocol ledger): "FILE:LINE: " and its single values.
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <string>

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

}  // namespace repro
