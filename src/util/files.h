#pragma once
// File helpers: atomic writes (temporary file, then rename) with every write
// checked, appends, whole-file reads and the sweeping of stale temporary files.
// Every file repro writes goes through here (tests/test_links.cpp checks the
// sources), and none is ever opened through a symbolic link: a whole-file write
// replaces a link at its path (the link's target is untouched), an append to a
// link is refused.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace repro {

namespace fs = std::filesystem;

// Writes `content` to `path` through `path.tmp-<pid>`, fsync and a rename, so a
// reader never sees a half-written file. Creates parent folders. Every step is
// checked: a failure (disk full, read-only folder, quota, file-size limit)
// throws repro::Error "cannot write PATH: REASON" and removes the temporary file.
void write_file_atomic(const fs::path& path, const std::string& content);

// Writes several files as write_file_atomic writes one, all or none: each is written to its temporary sibling
// first, and only when every one is written are they renamed into place. A target that is a folder, or a write that
// fails (a read-only folder, a full disk), throws WriteError naming it before any target is touched.
void write_files_atomic(const std::vector<std::pair<fs::path, std::string>>& files);

// Appends `text` to `path` (created when absent), checked like write_file_atomic;
// a symbolic link at `path` is refused (WriteError), never followed.
void append_file(const fs::path& path, const std::string& text);

// The first of root/a, root/a/b, ... (the components of `relative`) that is a symbolic link; nullopt when none is.
// A run folder reached through a link is the same record as the folder it names: never counted twice.
std::optional<fs::path> first_link_below(const fs::path& root, const fs::path& relative);
// What the link `path` names, as written in it ("?" when it cannot be read).
std::string link_target(const fs::path& path);

// Every entry below `root`, depth first, each folder's entries in name order; a symbolic link is passed to `visit`
// and never followed. A folder that cannot be listed (permissions, removed meanwhile) is passed to `unreadable` with
// the reason and skipped: one such folder never hides the others.
void walk_tree(const fs::path& root, const std::function<void(const fs::directory_entry&)>& visit,
               const std::function<void(const fs::path& folder, const std::string& reason)>& unreadable);

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

// Bounds on what repro reads whole (bytes). A file beyond its bound is refused naming it: no input can take the
// machine's memory.
inline constexpr uint64_t kMiB = uint64_t(1) << 20;
inline constexpr uint64_t kSpecBytes = 16 * kMiB;    // a spec, a spec.resolved.yaml, a paper file
inline constexpr uint64_t kRecordBytes = 64 * kMiB;  // summary.json, eval/*.json, metrics.csv, jobs.txt
inline constexpr uint64_t kPlanBytes = 256 * kMiB;   // plan.json (a run is about 200 bytes of it), tasks.json
inline constexpr uint64_t kLogBytes = 1024 * kMiB;   // steps.csv, log.txt, the event file (collect copies them)
inline constexpr uint64_t kDataBytes = 4096 * kMiB;  // one dataset file or archive member (the largest is 0.2 GiB)
// A file its reader takes in pieces (a checkpoint or model.pt through LibTorch's zip reader, a file being
// checksummed): no bound on its size, only on what it is (a FIFO or a device is refused).
inline constexpr uint64_t kStreamedBytes = UINT64_MAX;

// Reads the whole regular file at `path` (a link is followed to its target), of at most `max_bytes` bytes.
// Anything else is refused at once with one line naming the file and naming it as `what` expects ("a spec
// file", "a run record"): a folder, a FIFO (never opened for a blocking read: it cannot hang), a device such as
// /dev/zero or /dev/urandom (never read without end), a socket, a file beyond the bound. Throws repro::Error.
std::string read_regular_file(const fs::path& path, uint64_t max_bytes, const std::string& what);
// The same checks without reading: the size of the regular file at `path`; throws as read_regular_file does.
uint64_t regular_file_size(const fs::path& path, uint64_t max_bytes, const std::string& what);
// "a folder", "a FIFO (named pipe)", "a character device", ... for what `path` is when it is not a regular file
// (a link followed); "" for a regular file or nothing there.
std::string non_regular_kind(const fs::path& path);

// read_regular_file(path, kLogBytes, "a file"): for tests and tools. repro's own sources name the bound and
// what they expect (tests/test_links.cpp checks that src/ never calls this).
std::string read_file(const fs::path& path);

// A temporary sibling path for atomic writes: `path.tmp-<pid>`.
fs::path temp_sibling(const fs::path& path);

// Whether `name` is a temporary sibling's, `*.tmp-<pid>` (a write in progress, or left by a process that was killed):
// repro collect's staging folder `.collect.tmp-<pid>` among them. Never records: report, status, the board and
// collect skip such folders.
bool is_temp_name(const std::string& name);
// The one line that names such a folder, found among records and skipped; "" when this process named it already
// (a command reads a folder more than once).
std::string skipped_temp_note(const fs::path& folder);

// Renames `from` onto `to` (atomic on one file system); throws naming both.
void commit_file(const fs::path& from, const fs::path& to);

// Removes the `*.tmp-<pid>` files (and folders: repro collect's staging) directly in `dir` whose process is no
// longer alive (or is this process: nothing is mid-write while a run starts). Returns how many were removed; a
// missing folder removes none.
int sweep_stale_temp_files(const fs::path& dir);

}  // namespace repro
