#pragma once
// Where a dataset's files come from: plain files under the data root, or members
// of the official (or any) tar archives there (tar, tar.gz/tgz, tar.xz, tar.bz2),
// read with libarchive, so nothing needs unpacking by hand.
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "data/manifest.h"

namespace repro {

// Calls `visit(path, read)` for each regular member of a tar archive (any
// compression libarchive knows); `read()` returns the member's bytes.
void for_each_member(const std::filesystem::path& archive_path,
                     const std::function<void(const std::string&, const std::function<std::string()>&)>& visit);

class DatasetFiles {
 public:
  // `overrides`: "role=name,role=name" (the data.files key) replaces manifest names.
  DatasetFiles(const Manifest& manifest, std::filesystem::path data_root, const std::string& overrides);

  // The bytes of each role's file, reading every archive at most once.
  // A missing file is an error naming it, the places looked and where to get it.
  std::map<std::string, std::string> read(const std::vector<std::string>& roles) const;
  // The path of a plain file for libraries that need one (e.g. MATLAB files).
  std::filesystem::path plain_path(const std::string& role) const;
  std::string name_of(const std::string& role) const;

  // Every file under the folder `top` (e.g. "aclImdb") whose path relative to the
  // folder holding `top` ("aclImdb/train/pos/0_9.txt") passes `wanted`: read from
  // the unpacked folder when there is one, else from the archives. Sorted by path.
  using Tree = std::vector<std::pair<std::string, std::string>>;  // (path, bytes)
  Tree read_tree(const std::string& top, const std::function<bool(const std::string&)>& wanted) const;

 private:
  std::vector<std::filesystem::path> plain_places(const std::string& name) const;
  std::vector<std::filesystem::path> archives() const;
  [[noreturn]] void missing(const std::string& role) const;

  const Manifest& manifest_;
  std::filesystem::path root_;
  std::map<std::string, std::string> names_;  // role -> file name
};

}  // namespace repro
