#pragma once
// The text of a run folder's lock file (record/folder.h: RunFolder::lock_path): who took the lock last. The lock
// itself is the flock(2) run/lock.h takes; this record only names its holder for messages and `repro status`.
#include <cstdint>
#include <string>

namespace repro {

struct LockHolder {
  std::string host;  // "?" when the lock file has not been written yet
  int64_t pid = 0;
  std::string slurm_job;  // $SLURM_JOB_ID of the holder, "" when unset
  std::string since;      // UTC time the lock was taken
  // "host:pid", plus " (SLURM job 123)" when the holder runs under SLURM.
  std::string describe() const;
};

// One line of JSON: {"host", "pid", "slurm_job", "since"}.
std::string lock_holder_text(const LockHolder& holder);
// The holder a lock file names; an unknown holder ("?", pid 0) when the text is empty (the holder took the lock a
// moment ago) or damaged: a lock's text never stops a command.
LockHolder read_lock_holder(const std::string& text);

}  // namespace repro
