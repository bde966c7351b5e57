#include "data/token_cache.h"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "util/error.h"
#include "util/files.h"

namespace repro {

namespace {

constexpr int64_t kFormatVersion = 1;

std::filesystem::path cache_file(const std::string& key) {
  return token_cache_dir() / ("tokens-" + fnv1a_hex(key) + ".pt");
}

// One warning per command for a cache that cannot be used (unreadable, not a folder, read-only): the run trains
// without it.
void warn_cache_once(const std::string& text) {
  static bool warned = false;
  if (warned) return;
  warned = true;
  spdlog::warn("{}; training without the token cache", text);
}

}  // namespace

std::string fnv1a_hex(const std::string& text) {
  uint64_t hash = 1469598103934665603ull;
  for (const unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(hash));
  return buffer;
}

std::filesystem::path token_cache_dir() {
  if (const char* dir = std::getenv("REPRO_CACHE"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "repro";
  if (const char* home = std::getenv("HOME"); home && *home) return std::filesystem::path(home) / ".cache/repro";
  return std::filesystem::temp_directory_path() / "repro-cache";
}

std::optional<TokenizedSplits> read_token_cache(const std::string& key) {
  const auto path = cache_file(key);
  std::error_code error;
  const bool present = std::filesystem::exists(path, error);
  if (error) {
    warn_cache_once("cannot read the cache folder " + token_cache_dir().string() + " ($REPRO_CACHE): " +
                    error.message());
    return std::nullopt;
  }
  if (!present) return std::nullopt;
  try {
    torch::serialize::InputArchive archive;
    regular_file_size(path, kStreamedBytes, "a token cache");  // a FIFO would block LibTorch's reader
    archive.load_from(path.string());
    c10::IValue version, stored_key;
    archive.read("version", version);
    archive.read("key", stored_key);
    if (version.toInt() != kFormatVersion || stored_key.toStringRef() != key) {
      spdlog::info("token cache {} is stale; rebuilding it", path.string());
      return std::nullopt;
    }
    TokenizedSplits splits;
    torch::Tensor vocab;
    for (auto [name, split] :
         {std::pair<const char*, Split*>{"train", &splits.train}, {"val", &splits.val}, {"test", &splits.test}}) {
      archive.read(std::string(name) + "_ids", split->inputs);
      archive.read(std::string(name) + "_labels", split->labels);
    }
    archive.read("vocab_size", vocab);
    splits.vocab_size = vocab.item<int64_t>();
    return splits;
  } catch (const std::exception&) {  // LibTorch's error, or not a regular file (Error): caches cost time, never a run
    spdlog::warn("token cache {} is unreadable; rebuilding it", path.string());
    return std::nullopt;
  }
}

void write_token_cache(const std::string& key, const TokenizedSplits& splits) {
  const auto path = cache_file(key);
  try {
    std::filesystem::create_directories(path.parent_path());
    torch::serialize::OutputArchive archive;
    archive.write("version", c10::IValue(kFormatVersion));
    archive.write("key", c10::IValue(key));
    for (auto [name, split] :
         {std::pair<const char*, const Split*>{"train", &splits.train}, {"val", &splits.val}, {"test", &splits.test}}) {
      archive.write(std::string(name) + "_ids", split->inputs);
      archive.write(std::string(name) + "_labels", split->labels);
    }
    archive.write("vocab_size", torch::tensor(splits.vocab_size));
    std::ostringstream bytes;  // in memory first: LibTorch's file writer aborts on a full disk
    archive.save_to(bytes);
    write_file_atomic(path, bytes.str());
  } catch (const std::exception& e) {
    warn_cache_once("could not write the token cache " + path.string() + ": " + error_text(e));
  }
}

}  // namespace repro
