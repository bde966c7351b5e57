#pragma once
// Dataset manifests (datasets/<name>.yaml, compiled into the binary): the
// official files with sizes, checksums and download addresses, known copies
// that differ from them, and the official examples per class.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace repro {

struct ManifestFile {
  std::string name, role, sha256, url;
  uint64_t bytes = 0;
  std::string note;  // known copies: what the copy holds, e.g. "records 0-999 of test_batch.bin"
};

struct Manifest {
  std::string name, folder, homepage, citation;
  std::string subfolder;            // the folder the official archive unpacks to, e.g. cifar-10-batches-bin
  std::vector<ManifestFile> files;  // the official files (what `repro data fetch` downloads)
  // Known copies that are not official files (a partial test file, a repacked
  // archive): a file of this name and role is checked against these size and sha256.
  std::vector<ManifestFile> copies;
  // Official examples per class of each split ("train", "test"), where known;
  // one value means every class has that many.
  std::map<std::string, std::vector<int64_t>> class_counts;
  std::map<std::string, int64_t> official_counts;  // examples per official split ("train", "test")

  // The official file of `role`, or null.
  const ManifestFile* official(const std::string& role) const;
  // The official file or known copy with this role and file name, or null.
  const ManifestFile* entry(const std::string& role, const std::string& name) const;
  // Expected examples of class `label` in `split`, or -1 when the manifest does not say.
  int64_t class_count(const std::string& split, int64_t label) const;
  // The share of `split` its most common class holds (the accuracy of always answering it), from the official
  // counts; a split the manifest does not count (a validation or test cut of the training set) as the training
  // set's. NaN when unknown.
  double majority_share(const std::string& split) const;
};

const Manifest& manifest(const std::string& dataset);

}  // namespace repro
