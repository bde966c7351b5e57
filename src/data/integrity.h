#pragma once
// Integrity checks at load time: each file against its manifest entry (size and
// sha256, data.verify), and the classes of each split as read from the files.
#include <filesystem>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "data/manifest.h"
#include "spec/options.h"

namespace repro {

// data.verify (VerifyMode, spec/options.h): strict = a mismatch is an error; warn = a
// warning, a note and †; off = no size or checksum check (class checks still run).

// The data.* settings a loader reads.
struct FileOptions {
  FileOptions(std::string files = "", VerifyMode verify = VerifyMode::Strict)
      : files(std::move(files)), verify(verify) {}
  FileOptions(const char* files) : files(files) {}  // load_x(root, "test=...") reads as before, strictly checked
  std::string files;                                // data.files: ROLE=NAME,... renames files
  VerifyMode verify = VerifyMode::Strict;           // data.verify
  bool allow_missing = false;                       // `repro data info`: a missing file is a note and an empty split
};

// One file as found: where, and what it was checked against.
struct FoundFile {
  std::string role, name;
  std::filesystem::path file;  // the plain file, or the archive holding it
  std::string member;          // the member's path inside `file`; empty for a plain file
  uint64_t size = 0;
  std::string where() const;  // "path" or "path (member m)"
};

// Checks `found` (whose content is `bytes`; empty to read a plain file from disk
// when its hash is needed) against the manifest:
//  - the official name: size and sha256 of the official file (size only where
//    the manifest has no sha256);
//  - a known copy's name (manifest `copies`): its size and sha256, and a note saying what the copy holds;
//  - any other name (data.files renamed it): checked against the official
//    file's sha256 and, unless equal, noted as unverified (no checksum to check).
// A mismatch is an error naming the file, both sizes and both hashes (strict), or
// a warning and an "unverified:" note (warn). `off` checks nothing. Returns a
// one-line status for `repro data info`.
std::string check_file(const Manifest& manifest, const FoundFile& found, const std::string* bytes, VerifyMode mode,
                       DataNotes& notes);

// Class checks on one split as read from the files (before limits), labels in [0, classes):
//  - every class is present (an error: a one-class split makes accuracy meaningless);
//  - when the split has the official size, its examples per class equal the
//    manifest's (where known): strict = error, warn = note, off = not checked.
// `split` is "train" or "test"; `source` names the files it came from.
void check_split_classes(const DatasetInfo& info, const Manifest& manifest, const std::string& split,
                         const std::vector<int64_t>& counts, const std::string& source, VerifyMode mode,
                         DataNotes& notes);

// Examples per class of `labels` ((N,) int64 tensor, or a vector).
std::vector<int64_t> count_classes(const torch::Tensor& labels, int64_t classes);
std::vector<int64_t> count_classes(const std::vector<int64_t>& labels, int64_t classes);

}  // namespace repro
