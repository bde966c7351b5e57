#pragma once
// Dataset manifests (datasets/<name>.yaml, compiled into the binary): the
// official files with sizes, checksums and download addresses.
#include <cstdint>
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
  std::string subfolder;            // the folder the official archive unpacks to, e.g. cifar-10-batches-bin
  std::vector<ManifestFile> files;  // (official split sizes live in each DatasetInfo)
};

const Manifest& manifest(const std::string& dataset);

}  // namespace repro
