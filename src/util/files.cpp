#include "util/files.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>
#include <vector>

#include "util/error.h"

namespace repro {

namespace {

[[noreturn]] void fail_write(const fs::path& path, int error_number) {
  throw WriteError(path.string(), std::strerror(error_number));
}

void create_parent(const fs::path& path) {
  if (!path.has_parent_path()) return;
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) throw WriteError(path.string(), "cannot create its folder (" + ec.message() + ")");
}

// Writes the `left` bytes at `data` to `fd`, retrying short writes; returns 0 or errno.
int write_all(int fd, const char* data, size_t left) {
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    data += n;
    left -= static_cast<size_t>(n);
  }
  return 0;
}

const char* const kLinkReason =
    "it is a symbolic link (repro never writes through a link: remove it, or write somewhere else)";

// Opens `path` for writing with `flags` (O_APPEND or O_EXCL), never through a link: O_NOFOLLOW refuses a link at
// `path` for an append; a temporary file is created afresh (a stale one or a planted link of its name removed
// first, then O_EXCL). Returns the descriptor, or -errno.
int open_for_writing(const fs::path& path, int flags) {
  if (flags & O_EXCL) {
    std::error_code ignored;
    fs::remove(path, ignored);
  }
  const int fd = ::open(path.c_str(), flags | O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  return fd >= 0 ? fd : -errno;
}

[[noreturn]] void fail_open(const fs::path& path, int error_number) {
  if (error_number == ELOOP) throw WriteError(path.string(), kLinkReason);
  fail_write(path, error_number);
}

// Writes, fsyncs and closes `path` opened with `flags`; returns 0 or errno (the file is closed either way).
int write_and_close(const fs::path& path, int flags, const std::string& content) {
  const int fd = open_for_writing(path, flags);
  if (fd < 0) return -fd;
  int error_number = write_all(fd, content.data(), content.size());
  if (error_number == 0 && ::fsync(fd) != 0 && errno != EINVAL) error_number = errno;
  if (::close(fd) != 0 && error_number == 0) error_number = errno;
  return error_number;
}

// Best effort: makes a rename in `dir` durable across a power loss.
void sync_folder(const fs::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// The pid in a name ending in ".tmp-<digits>", or 0.
pid_t temp_file_pid(const std::string& name) {
  const auto at = name.rfind(".tmp-");
  if (at == std::string::npos || at + 5 == name.size()) return 0;
  const std::string digits = name.substr(at + 5);
  if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) return 0;
  return static_cast<pid_t>(std::stol(digits));
}

bool process_alive(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

}  // namespace

bool is_temp_name(const std::string& name) { return temp_file_pid(name) > 0; }

std::string skipped_temp_note(const fs::path& folder) {
  static std::mutex mutex;
  static std::set<fs::path> named;
  const std::lock_guard<std::mutex> lock(mutex);
  if (!named.insert(folder.lexically_normal()).second) return "";
  const pid_t pid = temp_file_pid(folder.filename().string());
  const std::string whose = process_alive(pid) ? "of process " + std::to_string(pid) +
                                                     ", still running (a repro "
                                                     "collect in progress)"
                                               : "left by process " + std::to_string(pid) +
                                                     ", which is gone (a repro "
                                                     "collect that was killed): the next repro collect into " +
                                                     folder.parent_path().string() + " removes it";
  return folder.string() + ": skipped, not records: a temporary folder " + whose;
}

fs::path temp_sibling(const fs::path& path) { return fs::path(path.string() + ".tmp-" + std::to_string(::getpid())); }

void commit_file(const fs::path& from, const fs::path& to) {
  std::error_code rename_error;
  fs::rename(from, to, rename_error);
  if (rename_error) {
    std::error_code ignored;  // the cleanup's own error must not replace the rename's reason
    fs::remove(from, ignored);
    throw WriteError(to.string(),
                     "renaming " + from.filename().string() + " onto it failed (" + rename_error.message() + ")");
  }
}

void write_file_atomic(const fs::path& path, const std::string& content) {
  create_parent(path);
  const fs::path tmp = temp_sibling(path);
  if (const int error_number = write_and_close(tmp, O_EXCL, content); error_number != 0) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    fail_write(path, error_number);
  }
  commit_file(tmp, path);
  sync_folder(path.parent_path());
}

void write_files_atomic(const std::vector<std::pair<fs::path, std::string>>& files) {
  std::vector<fs::path> written;  // the temporary siblings written so far
  const auto undo = [&] {
    std::error_code ignored;
    for (const auto& tmp : written) fs::remove(tmp, ignored);
  };
  for (const auto& [path, content] : files) {
    std::error_code ec;
    if (fs::is_directory(fs::symlink_status(path, ec))) {
      undo();
      throw WriteError(path.string(), "it is a folder, not a file (nothing was written)");
    }
  }
  for (const auto& [path, content] : files) {
    const fs::path tmp = temp_sibling(path);
    try {
      create_parent(path);
    } catch (const std::exception&) {
      undo();
      throw;
    }
    if (const int error_number = write_and_close(tmp, O_EXCL, content); error_number != 0) {
      std::error_code ignored;
      fs::remove(tmp, ignored);
      undo();
      throw WriteError(path.string(), std::string(std::strerror(error_number)) + " (nothing was written)");
    }
    written.push_back(tmp);
  }
  for (const auto& [path, content] : files) {
    commit_file(temp_sibling(path), path);
    sync_folder(path.parent_path());
  }
}

void append_file(const fs::path& path, const std::string& text) {
  create_parent(path);
  if (const int error_number = write_and_close(path, O_APPEND, text); error_number != 0) fail_open(path, error_number);
}

std::optional<fs::path> first_link_below(const fs::path& root, const fs::path& relative) {
  fs::path at = root;
  for (const auto& part : relative) {
    if (part.empty() || part == ".") continue;
    at /= part;
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(at, ec))) return at;
  }
  return std::nullopt;
}

std::string link_target(const fs::path& path) {
  std::error_code ec;
  const fs::path target = fs::read_symlink(path, ec);
  return ec ? "?" : target.string();
}

void walk_tree(const fs::path& root, const std::function<void(const fs::directory_entry&)>& visit,
               const std::function<void(const fs::path& folder, const std::string& reason)>& unreadable) {
  std::error_code ec;
  std::vector<fs::directory_entry> entries;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) entries.push_back(*it);
  if (ec) {
    unreadable(root, ec.message());
    return;
  }
  std::sort(entries.begin(), entries.end(),
            [](const fs::directory_entry& a, const fs::directory_entry& b) { return a.path() < b.path(); });
  for (const auto& entry : entries) {
    visit(entry);
    std::error_code status_error;
    if (!entry.is_symlink(status_error) && entry.is_directory(status_error)) walk_tree(entry.path(), visit, unreadable);
  }
}

void refuse_link(const fs::path& path) {
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(path, ec))) throw WriteError(path.string(), kLinkReason);
}

OutputFile OutputFile::replace(const fs::path& path) {
  create_parent(path);
  const fs::path tmp = temp_sibling(path);
  const int fd = open_for_writing(tmp, O_EXCL);
  if (fd < 0) fail_open(path, -fd);
  OutputFile file(path, fd);  // closes on the throw below
  commit_file(tmp, path);
  return file;
}

OutputFile OutputFile::append(const fs::path& path) {
  create_parent(path);
  const int fd = open_for_writing(path, O_APPEND);
  if (fd < 0) fail_open(path, -fd);
  return OutputFile(path, fd);
}

OutputFile::OutputFile(OutputFile&& other) noexcept : path_(std::move(other.path_)), fd_(other.fd_) { other.fd_ = -1; }

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
}

void OutputFile::write(const char* data, size_t size) {
  if (const int error_number = write_all(fd_, data, size); error_number != 0) fail_write(path_, error_number);
}

namespace {

std::string kind_of_mode(mode_t mode) {
  if (S_ISREG(mode)) return "";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string bytes_text(uint64_t bytes) {
  return bytes >= kMiB ? std::to_string(bytes / kMiB) + " MiB" : std::to_string(bytes) + " bytes";
}

[[noreturn]] void refuse_kind(const fs::path& path, const std::string& kind, const std::string& what) {
  throw Error(path.string() + ": is " + kind + ", expected " + what + " (a regular file)");
}

[[noreturn]] void refuse_size(const fs::path& path, uint64_t size, uint64_t max_bytes, const std::string& what) {
  throw Error(path.string() + ": " + bytes_text(size) + ", more than the " + bytes_text(max_bytes) + " " + what +
              " may hold (not the file repro wrote or expects?)");
}

// An open descriptor of the regular file at `path` (O_NONBLOCK: opening a FIFO never waits for a writer), checked
// by fstat; its size through `size`.
int open_regular(const fs::path& path, uint64_t max_bytes, const std::string& what, uint64_t& size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw Error("cannot read " + path.string() + ": " + std::strerror(errno));
  struct stat status {};
  if (::fstat(fd, &status) != 0) {
    const int error_number = errno;
    ::close(fd);
    throw Error("cannot read " + path.string() + ": " + std::strerror(error_number));
  }
  if (const std::string kind = kind_of_mode(status.st_mode); !kind.empty()) {
    ::close(fd);
    refuse_kind(path, kind, what);
  }
  size = static_cast<uint64_t>(status.st_size);
  if (size > max_bytes) {
    ::close(fd);
    refuse_size(path, size, max_bytes, what);
  }
  return fd;
}

}  // namespace

std::string non_regular_kind(const fs::path& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) return "";
  return kind_of_mode(status.st_mode);
}

uint64_t regular_file_size(const fs::path& path, uint64_t max_bytes, const std::string& what) {
  uint64_t size = 0;
  ::close(open_regular(path, max_bytes, what, size));
  return size;
}

std::string read_regular_file(const fs::path& path, uint64_t max_bytes, const std::string& what) {
  uint64_t size = 0;
  const int fd = open_regular(path, max_bytes, what, size);
  std::string bytes;
  bytes.reserve(static_cast<size_t>(size));
  char chunk[1 << 16];
  while (true) {  // to the end, which may differ from the size fstat saw (a file still growing): bounded too
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error_number = errno;
      ::close(fd);
      throw Error("cannot read " + path.string() + ": " + std::strerror(error_number));
    }
    if (n == 0) break;
    bytes.append(chunk, static_cast<size_t>(n));
    if (bytes.size() > max_bytes) {
      ::close(fd);
      refuse_size(path, bytes.size(), max_bytes, what);
    }
  }
  ::close(fd);
  return bytes;
}

std::string read_file(const fs::path& path) { return read_regular_file(path, kLogBytes, "a file"); }

int sweep_stale_temp_files(const fs::path& dir) {
  std::error_code ec;
  int removed = 0;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const pid_t pid = temp_file_pid(it->path().filename().string());
    if (pid <= 0 || (pid != ::getpid() && process_alive(pid))) continue;
    std::error_code remove_ec;
    if (fs::remove_all(it->path(), remove_ec) > 0) ++removed;  // a folder too: repro collect's staging
  }
  return removed;
}

}  // namespace repro
