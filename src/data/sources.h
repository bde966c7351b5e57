#pragma once
// Where a dataset's files come from: plain files under the data root, or members
// of the official (or any) tar archives there (tar, tar.gz/tgz, tar.xz, tar.bz2),
// read with libarchive, so nothing needs unpacking by hand.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "data/manifest.h"

namespace repro {

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

 private:
  std::vector<std::filesystem::path> plain_places(const std::string& name) const;
  std::vector<std::filesystem::path> archives() const;
  [[noreturn]] void missing(const std::string& role) const;

  const Manifest& manifest_;
  std::filesystem::path root_;
  std::map<std::string, std::string> names_;  // role -> file name
};

}  // namespace repro
