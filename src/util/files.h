#pragma once
// File helpers: atomic writes (temporary file, then rename) with every write
// checked, appends, whole-file reads and the sweeping of stale temporary files.
#include <filesystem>
#include <string>

namespace repro {

namespace fs = std::filesystem;

// Writes `content` to `path` through `path.tmp-<pid>`, fsync and a rename, so a
// reader never sees a half-written file. Creates parent folders. Every step is
// checked: a failure (disk full, read-only folder, quota, file-size limit)
// throws repro::Error "cannot write PATH: REASON" and removes the temporary file.
void write_file_atomic(const fs::path& path, const std::string& content);

// Appends `text` to `path` (created when absent), checked like write_file_atomic.
void append_file(const fs::path& path, const std::string& text);

// Reads a whole file; throws repro::Error naming the file and the reason when it cannot.
std::string read_file(const fs::path& path);

// A temporary sibling path for atomic writes: `path.tmp-<pid>`.
fs::path temp_sibling(const fs::path& path);

// Renames `from` onto `to` (atomic on one file system); throws naming both.
void commit_file(const fs::path& from, const fs::path& to);

// Removes the `*.tmp-<pid>` files directly in `dir` whose process is no longer
// alive (or is this process: nothing is mid-write while a run starts). Returns
// how many were removed; a missing folder removes none.
int sweep_stale_temp_files(const fs::path& dir);

}  // namespace repro
