#pragma once
// Where a dataset's files come from: plain files under the data root, or members
// of the official (or any) tar archives there (tar, tar.gz/tgz, tar.xz, tar.bz2),
// read with libarchive, so nothing needs unpacking by hand. Every file read is
// checked against the manifest (see integrity.h) as it is read.
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "data/integrity.h"
#include "data/manifest.h"

namespace repro {

// Whether `path` names a tar archive repro reads (.tar, .tar.gz, .tgz, .tar.xz, .txz, .tar.bz2).
bool is_archive(const std::filesystem::path& path);

// Calls `visit(path, read)` for each regular member of a tar archive (any
// compression libarchive knows); `read()` returns the member's bytes.
void for_each_member(const std::filesystem::path& archive_path,
                     const std::function<void(const std::string&, const std::function<std::string()>&)>& visit);

class DatasetFiles {
 public:
  // `options.files`: "role=name,role=name" (the data.files key) replaces manifest names.
  DatasetFiles(const Manifest& manifest, std::filesystem::path data_root, const FileOptions& options);

  // The bytes of each role's file, reading every archive at most once; each file
  // is checked against the manifest, and an empty file is an error. A missing
  // file is an error naming it, the places looked and where to get it; with
  // options.allow_missing (or `optional`) it is left out of the map and noted instead.
  std::map<std::string, std::string> read(const std::vector<std::string>& roles, bool optional = false);
  // The path of a plain file for libraries that need one (e.g. MATLAB files), checked;
  // nullopt when it is missing and options.allow_missing.
  std::optional<std::filesystem::path> plain_path(const std::string& role);
  std::string name_of(const std::string& role) const;

  // Every file under the folder `top` (e.g. "aclImdb") whose path relative to the
  // folder holding `top` ("aclImdb/train/pos/0_9.txt") passes `wanted`: read from
  // the unpacked folder when there is one, else from the archives. Sorted by path.
  // An archive the manifest knows (official or a known copy) is checked; other
  // sources are noted as not checksummed. Empty (and noted) when nothing is found
  // and options.allow_missing.
  using Tree = std::vector<std::pair<std::string, std::string>>;  // (path, bytes)
  Tree read_tree(const std::string& top, const std::function<bool(const std::string&)>& wanted);

  const Manifest& manifest() const { return manifest_; }
  const FileOptions& options() const { return options_; }
  // What reading found: missing files, known copies, unverified files.
  const DataNotes& notes() const { return notes_; }
  // One line per file read or missing: where it was found and what was checked.
  const std::vector<std::string>& report() const { return report_; }

  // Where a file of this name may be, in order; and the archives searched after them.
  std::vector<std::filesystem::path> plain_places(const std::string& name) const;
  std::vector<std::filesystem::path> archives() const;

 private:
  std::string looked_in(const std::string& name) const;
  // Throws the missing-file error, or notes it when options.allow_missing or `optional`.
  void missing(const std::string& role, bool optional = false);
  void check_not_empty(const FoundFile& found) const;  // an empty file is an error in every mode
  void check(const FoundFile& found, const std::string* bytes);

  const Manifest& manifest_;
  std::filesystem::path root_;
  FileOptions options_;
  std::map<std::string, std::string> names_;  // role -> file name
  std::set<std::string> seen_members_;        // base names of archive members seen while reading
  std::set<std::string> checked_;             // FoundFile::where() of the files checked
  DataNotes notes_;
  std::vector<std::string> report_;
};

}  // namespace repro
