#include "data/manifest.h"

#include <yaml-cpp/yaml.h>

#include "util/error.h"

namespace repro {

const std::map<std::string, std::string>& manifest_texts();  // generated

namespace {

Manifest parse_manifest(const std::string& dataset, const std::string& text) {
  const YAML::Node root = YAML::Load(text);
  Manifest m;
  m.name = root["name"].as<std::string>();
  m.folder = root["folder"].as<std::string>();
  m.homepage = root["homepage"].as<std::string>("");
  m.subfolder = root["subfolder"].as<std::string>("");
  m.citation = root["citation"].as<std::string>("");
  for (const auto& node : root["files"]) {
    ManifestFile f;
    f.name = node["name"].as<std::string>();
    f.role = node["role"].as<std::string>();
    f.bytes = node["bytes"].as<uint64_t>(0);
    f.sha256 = node["sha256"].as<std::string>("");
    f.url = node["url"].as<std::string>("");
    m.files.push_back(f);
  }
  return m;
}

}  // namespace

const Manifest& manifest(const std::string& dataset) {
  static std::map<std::string, Manifest> cache;
  if (auto it = cache.find(dataset); it != cache.end()) return it->second;
  const auto& texts = manifest_texts();
  const auto it = texts.find(dataset);
  if (it == texts.end()) throw Error("internal: no manifest datasets/" + dataset + ".yaml");
  return cache.emplace(dataset, parse_manifest(dataset, it->second)).first->second;
}

}  // namespace repro
