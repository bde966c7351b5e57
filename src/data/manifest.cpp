#include "data/manifest.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>

#include "util/error.h"

namespace repro {

const std::map<std::string, std::string>& manifest_texts();  // generated

namespace {

ManifestFile parse_file(const YAML::Node& node) {
  ManifestFile f;
  f.name = node["name"].as<std::string>();
  f.role = node["role"].as<std::string>();
  f.bytes = node["bytes"].as<uint64_t>(0);
  f.sha256 = node["sha256"].as<std::string>("");
  f.url = node["url"].as<std::string>("");
  f.note = node["note"].as<std::string>("");
  return f;
}

Manifest parse_manifest(const std::string& text) {
  const YAML::Node root = YAML::Load(text);
  Manifest m;
  m.name = root["name"].as<std::string>();
  m.folder = root["folder"].as<std::string>();
  m.homepage = root["homepage"].as<std::string>("");
  m.subfolder = root["subfolder"].as<std::string>("");
  m.citation = root["citation"].as<std::string>("");
  for (const auto& node : root["files"]) m.files.push_back(parse_file(node));
  for (const auto& node : root["copies"]) m.copies.push_back(parse_file(node));
  for (const auto& entry : root["class_counts"]) {
    const auto split = entry.first.as<std::string>();
    if (entry.second.IsSequence())
      m.class_counts[split] = entry.second.as<std::vector<int64_t>>();
    else
      m.class_counts[split] = {entry.second.as<int64_t>()};
  }
  for (const auto& entry : root["official_counts"])
    m.official_counts[entry.first.as<std::string>()] = entry.second.as<int64_t>();
  return m;
}

}  // namespace

const ManifestFile* Manifest::official(const std::string& role) const {
  for (const auto& f : files)
    if (f.role == role) return &f;
  return nullptr;
}

const ManifestFile* Manifest::entry(const std::string& role, const std::string& file_name) const {
  for (const auto* list : {&files, &copies})
    for (const auto& f : *list)
      if (f.role == role && f.name == file_name) return &f;
  return nullptr;
}

int64_t Manifest::class_count(const std::string& split, int64_t label) const {
  const auto it = class_counts.find(split);
  if (it == class_counts.end() || it->second.empty()) return -1;
  if (it->second.size() == 1) return it->second[0];
  return label < static_cast<int64_t>(it->second.size()) ? it->second[label] : -1;
}

double Manifest::majority_share(const std::string& split) const {
  const std::string counted = class_counts.count(split) ? split : "train";
  const auto counts = class_counts.find(counted);
  if (counts == class_counts.end() || counts->second.empty()) return NAN;
  if (counts->second.size() > 1) {  // one count per class
    int64_t total = 0;
    for (const int64_t n : counts->second) total += n;
    return total > 0 ? static_cast<double>(*std::max_element(counts->second.begin(), counts->second.end())) / total
                     : NAN;
  }
  const auto total = official_counts.find(counted);  // every class holds the one count
  return total == official_counts.end() || total->second <= 0
             ? NAN
             : static_cast<double>(counts->second.front()) / static_cast<double>(total->second);
}

const Manifest& manifest(const std::string& dataset) {
  static std::map<std::string, Manifest> cache;
  if (auto it = cache.find(dataset); it != cache.end()) return it->second;
  const auto& texts = manifest_texts();
  const auto it = texts.find(dataset);
  if (it == texts.end()) throw Error("internal: no manifest datasets/" + dataset + ".yaml");
  try {
    return cache.emplace(dataset, parse_manifest(it->second)).first->second;
  } catch (const YAML::Exception& e) {
    throw Error("internal: datasets/" + dataset + ".yaml: " + e.what());
  }
}

}  // namespace repro
