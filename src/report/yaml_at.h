#pragma once
// "FILE:LINE: ", the prefix of an error about a node of a YAML file the reports read
// (the paper tables, the claims).
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <string>

namespace repro {

inline std::string yaml_at(const std::filesystem::path& path, const YAML::Node& node) {
  return path.string() + ":" + std::to_string(node.Mark().line + 1) + ": ";
}

}  // namespace repro
