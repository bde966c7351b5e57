#include "run/lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "record/folder.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace {

std::string host_name() {
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  return host;
}

// The holder record written into the lock file once it is held: this process.
std::string holder_record() {
  const char* slurm = std::getenv("SLURM_JOB_ID");
  return lock_holder_text({host_name(), static_cast<int64_t>(::getpid()), slurm ? slurm : "", utc_now()});
}

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
  throw Error(path.string() + ": cannot " + what + " the run lock (" + std::strerror(errno) + ")");
}

void write_record(int fd, const std::filesystem::path& path) {
  const std::string text = holder_record();
  if (::ftruncate(fd, 0) != 0) fail(path, "write");
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::pwrite(fd, text.data() + done, text.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(path, "write");
    done += static_cast<size_t>(n);
  }
}

std::string read_all(int fd) {
  std::string text;
  char buffer[512];
  off_t offset = 0;
  constexpr off_t kMostBytes = 1 << 16;  // a holder record is a line: a larger lock file is not read on
  for (ssize_t n; offset < kMostBytes && (n = ::pread(fd, buffer, sizeof buffer, offset)) > 0; offset += n)
    text.append(buffer, n);
  return text;
}

}  // namespace

std::filesystem::path RunLock::path_in(const std::filesystem::path& folder) { return RunFolder(folder).lock_path(); }

std::optional<RunLock> RunLock::try_acquire(const std::filesystem::path& folder) {
  const auto path = path_in(folder);
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) throw Error(folder.string() + ": cannot create the run folder (" + error.message() + ")");
  // O_CLOEXEC: helper processes (repro-spm) must not inherit, and so keep, the lock. Never through a link.
  refuse_link(path);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) fail(path, "open");
  RunLock lock(fd);
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno == EWOULDBLOCK) return std::nullopt;  // ~RunLock closes fd
    fail(path, "take");
  }
  write_record(fd, path);
  return std::optional<RunLock>(std::move(lock));
}

std::optional<LockHolder> RunLock::holder(const std::filesystem::path& folder) {
  // O_NONBLOCK: a FIFO named lock never blocks the reader (status, the plan check).
  const int fd = ::open(path_in(folder).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<LockHolder> holder;
  if (::flock(fd, LOCK_SH | LOCK_NB) == 0)
    ::flock(fd, LOCK_UN);  // free: the file only records a holder that has ended
  else
    holder = read_lock_holder(read_all(fd));
  ::close(fd);
  return holder;
}

RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

}  // namespace repro
