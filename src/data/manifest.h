#pragma once
// Dataset manifests (datasets/<name>.yaml, compiled into the binary): the
// official files with sizes, checksums and download addresses.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace repro {

struct ManifestFile {
  std::string name, role, sha256, url;
  uint64_t bytes = 0;
};

struct Manifest {
  std::string name, folder, homepage, citation;
  std::string subfolder;  // the folder the official archive unpacks to, e.g. cifar-10-batches-bin
  std::map<std::string, int64_t> official_counts;  // split -> examples
  std::vector<ManifestFile> files;
  const ManifestFile& file(const std::string& role) const;
};

const Manifest& manifest(const std::string& dataset);

// Finds a manifest file under the data root (<root>/<folder>/ then <root>/).
// A missing file is an error naming it, the places looked and where to get it.
std::filesystem::path locate(const Manifest& manifest, const std::string& role,
                             const std::filesystem::path& data_root);

}  // namespace repro
