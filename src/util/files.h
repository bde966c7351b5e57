#pragma once
// File helpers: atomic writes (temporary file, then rename) with every write
// checked, appends, whole-file reads and the sweeping of stale temporary files.
// Every file repro writes goes through here (tests/test_links.cpp checks the
// sources), and none is ever opened through a symbolic link: a whole-file write
// replaces a link at its path (the link's target is untouched), an append to a
// link is refused.
#include <filesystem>
#include <optional>
#include <string>

namespace repro {

namespace fs = std::filesystem;

// Writes `content` to `path` through `path.tmp-<pid>`, fsync and a rename, so a
// reader never sees a half-written file. Creates parent folders. Every step is
// checked: a failure (disk full, read-only folder, quota, file-size limit)
// throws repro::Error "cannot write PATH: REASON" and removes the temporary file.
void write_file_atomic(const fs::path& path, const std::string& content);

// Appends `text` to `path` (created when absent), checked like write_file_atomic;
// a symbolic link at `path` is refused (WriteError), never followed.
void append_file(const fs::path& path, const std::string& text);

// The first of root/a, root/a/b, ... (the components of `relative`) that is a symbolic link; nullopt when none is.
// A run folder reached through a link is the same record as the folder it names: never counted twice.
std::optional<fs::path> first_link_below(const fs::path& root, const fs::path& relative);
// What the link `path` names, as written in it ("?" when it cannot be read).
std::string link_target(const fs::path& path);

// Throws WriteError "cannot write PATH: it is a symbolic link ..." when `path` is one.
void refuse_link(const fs::path& path);

// A file open for writing, never through a symbolic link; closed by the destructor.
// Every write is checked and throws WriteError naming the file.
class OutputFile {
 public:
  // A new, empty regular file at `path`, created as `path.tmp-<pid>` and renamed onto
  // `path`: whatever was there (a link included, whose target is untouched) is replaced.
  static OutputFile replace(const fs::path& path);
  // `path` opened for appending (created when absent); a link at `path` is refused.
  static OutputFile append(const fs::path& path);

  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  OutputFile(const OutputFile&) = delete;
  ~OutputFile();

  void write(const char* data, size_t size);
  void write(const std::string& text) { write(text.data(), text.size()); }
  const fs::path& path() const { return path_; }

 private:
  OutputFile(fs::path path, int fd) : path_(std::move(path)), fd_(fd) {}
  fs::path path_;
  int fd_ = -1;
};

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
