#pragma once
// sha256 of dataset files, cached on disk so that a file is hashed once, not on
// every run. The cache is <cache folder>/sha256.tsv (the token cache's folder:
// $REPRO_CACHE, else $XDG_CACHE_HOME/repro, else ~/.cache/repro), one line per
// file or archive member: sha256, size, mtime and ctime (ns), path[, member].
// An entry is used only while the file's size, mtime and ctime are unchanged
// (ctime also changes when a tool restores an old mtime). A cache that cannot be
// read or written costs only time: one warning in the log, and hashes are
// recomputed.
#include <cstdint>
#include <filesystem>
#include <string>

namespace repro {

// The sha256 of `bytes`, which are the content of `file` (member empty) or of the
// archive member `member` of `file`; from the cache when `file` is unchanged.
std::string cached_sha256(const std::filesystem::path& file, const std::string& member, const std::string& bytes);
// The sha256 of a whole file, read from disk only when it is not cached.
std::string cached_sha256_file(const std::filesystem::path& file);

// What this process's look-ups have done so far; `repro data verify` reports it.
struct HashCounts {
  int64_t computed = 0;  // hashes computed from a file's or member's bytes
  int64_t cached = 0;    // hashes taken from the cache (the file unchanged since)
};
HashCounts hash_counts();
// Forgets the entries held in memory, so the next look-up reads the cache file again (for tests).
void forget_cached_hashes();

}  // namespace repro
