#include "data/hash_cache.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>

#include "data/token_cache.h"
#include "util/error.h"
#include "util/files.h"
#include "util/sha256.h"
#include "util/strings.h"

namespace repro {

namespace fs = std::filesystem;

namespace {

struct Stamp {  // what identifies one version of a file
  uint64_t size = 0;
  int64_t mtime_ns = 0, ctime_ns = 0;
  bool operator==(const Stamp& o) const { return size == o.size && mtime_ns == o.mtime_ns && ctime_ns == o.ctime_ns; }
};

struct Entry {
  Stamp stamp;
  std::string sha256;
};

std::optional<Stamp> stamp_of(const fs::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return std::nullopt;
  const auto ns = [](const timespec& t) { return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec; };
  return Stamp{static_cast<uint64_t>(st.st_size), ns(st.st_mtim), ns(st.st_ctim)};
}

class HashCache {
 public:
  std::optional<std::string> find(const std::string& key, const Stamp& stamp) {
    std::lock_guard<std::mutex> lock(mutex_);
    load();
    const auto it = entries_.find(key);
    if (it == entries_.end() || !(it->second.stamp == stamp)) return std::nullopt;
    return it->second.sha256;
  }

  void store(const std::string& key, const Stamp& stamp, const std::string& sha256) {
    std::lock_guard<std::mutex> lock(mutex_);
    load();
    entries_[key] = {stamp, sha256};
    if (key.find_first_of("\n") != std::string::npos) return;  // not representable in the file
    if (unreadable_lines_ > 0)
      rewrite();
    else
      append(line_of(key, entries_[key]));
  }

  void forget() {
    std::lock_guard<std::mutex> lock(mutex_);
    loaded_from_.clear();
    entries_.clear();
    unreadable_lines_ = 0;
  }

 private:
  static fs::path cache_file() { return token_cache_dir() / "sha256.tsv"; }

  // (Re)reads the cache file when the cache folder is another than the one read ($REPRO_CACHE changed).
  void load() {
    const fs::path file = cache_file();
    if (file == loaded_from_) return;
    loaded_from_ = file;
    entries_.clear();
    unreadable_lines_ = 0;
    if (!non_regular_kind(file).empty()) {  // a FIFO would block, a device never end: the cache is skipped
      ++unreadable_lines_;
      return;
    }
    std::ifstream in(file, std::ios::binary);
    std::string line;
    while (std::getline(in, line)) {  // later lines win; malformed lines are counted and skipped
      if (!parse_line(line) || in.eof()) ++unreadable_lines_;  // eof: the last line lacks its newline
    }
  }

  bool parse_line(const std::string& line) {
    const auto fields = split(line, '\t');
    if (fields.size() < 5 || fields.size() > 6 || fields[0].size() != 64) return false;
    try {
      const Stamp stamp{std::stoull(fields[1]), std::stoll(fields[2]), std::stoll(fields[3])};
      entries_[fields[4] + (fields.size() > 5 ? "\t" + fields[5] : "")] = {stamp, fields[0]};
      return true;
    } catch (const std::exception&) {
      return false;
    }
  }

  static std::string line_of(const std::string& key, const Entry& entry) {
    return entry.sha256 + "\t" + std::to_string(entry.stamp.size) + "\t" + std::to_string(entry.stamp.mtime_ns) +
           "\t" + std::to_string(entry.stamp.ctime_ns) + "\t" + key + "\n";
  }

  // A cache file with lines this reader cannot parse is written anew from the entries it could, once, with one
  // warning: appending to it would glue the new line to a broken one, and the file would be hashed again each run.
  void rewrite() {
    const fs::path file = cache_file();
    std::string text;
    for (const auto& [key, entry] : entries_)
      if (key.find('\n') == std::string::npos) text += line_of(key, entry);
    try {
      write_file_atomic(file, text);
      spdlog::warn("the checksum cache {} had {} unreadable line(s); it was rewritten ({} entries)",
                   file.string(), unreadable_lines_, entries_.size());
      unreadable_lines_ = 0;
    } catch (const Error& e) {
      warn_once(e.what());
    }
  }

  void append(const std::string& line) {
    try {
      append_file(cache_file(), line);
    } catch (const Error& e) {
      warn_once(e.what());
    }
  }

  void warn_once(const std::string& failure) {
    if (warned_) return;
    warned_ = true;
    spdlog::warn("{} (the checksum cache: dataset files will be hashed again next run)", failure);
  }

  std::mutex mutex_;
  fs::path loaded_from_;
  std::map<std::string, Entry> entries_;  // key: path, or path TAB member
  int unreadable_lines_ = 0;  // in the file as read
  bool warned_ = false;
};

HashCache& hash_cache() {
  static HashCache cache;
  return cache;
}

std::atomic<int64_t> computed{0}, cached{0};  // HashCounts

std::string key_of(const fs::path& file, const std::string& member) {
  const std::string path = fs::absolute(file).lexically_normal().string();
  return member.empty() ? path : path + "\t" + member;
}

template <typename Compute>
std::string lookup_or_compute(const fs::path& file, const std::string& member, Compute compute) {
  const auto stamp = stamp_of(file);
  const std::string key = key_of(file, member);
  if (stamp)
    if (auto hit = hash_cache().find(key, *stamp)) {
      ++cached;
      return *hit;
    }
  const std::string sha = compute();
  ++computed;
  if (stamp) hash_cache().store(key, *stamp, sha);
  return sha;
}

}  // namespace

std::string cached_sha256(const fs::path& file, const std::string& member, const std::string& bytes) {
  return lookup_or_compute(file, member, [&] { return sha256_hex(bytes); });
}

std::string cached_sha256_file(const fs::path& file) {
  return lookup_or_compute(file, "", [&] { return sha256_file(file); });
}

HashCounts hash_counts() { return {computed.load(), cached.load()}; }

void forget_cached_hashes() { hash_cache().forget(); }

}  // namespace repro
