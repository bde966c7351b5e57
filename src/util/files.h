#pragma once
// File helpers: atomic writes (temporary file, then rename) and whole-file reads.
#include <filesystem>
#include <string>

namespace repro {

namespace fs = std::filesystem;

// Writes `content` to `path` through `path.tmp-<pid>` and a rename, so a reader
// never sees a half-written file. Creates parent folders.
void write_file_atomic(const fs::path& path, const std::string& content);

// Reads a whole file; throws repro::Error naming the file when it cannot.
std::string read_file(const fs::path& path);

// A temporary sibling path for atomic writes of files produced by other libraries.
fs::path temp_sibling(const fs::path& path);

// Renames `from` onto `to` (atomic on one file system).
void commit_file(const fs::path& from, const fs::path& to);

}  // namespace repro
