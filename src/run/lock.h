#pragma once
// The per-run lock: a run being trained holds an exclusive flock(2) on <run folder>/lock.
// The kernel releases it when the process ends in any way (exit, crash, SIGKILL), so a
// killed run's lock never goes stale; the file stays behind and only records the last
// holder (host, pid, SLURM job, time), which others read for their messages.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "record/lock_record.h"

namespace repro {

class RunLock {
 public:
  // The lock file of a run folder.
  static std::filesystem::path path_in(const std::filesystem::path& folder);
  // Creates the folder if needed and takes its lock without waiting; nullopt when another
  // open lock (another process, or another RunLock of this one) holds it. Throws repro::Error
  // naming the path when the folder or file cannot be created or locked.
  static std::optional<RunLock> try_acquire(const std::filesystem::path& folder);
  // Who holds the folder's lock now; nullopt when nobody does (no file, or a file left by a
  // process that has ended).
  static std::optional<LockHolder> holder(const std::filesystem::path& folder);

  RunLock(RunLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;
  RunLock& operator=(RunLock&&) = delete;
  ~RunLock();

 private:
  explicit RunLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace repro
