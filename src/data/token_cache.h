#pragma once
// On-disk cache of tokenized splits, so the next run does not tokenize again.
// Folder: $REPRO_CACHE, else $XDG_CACHE_HOME/repro, else ~/.cache/repro.
// One file per key (a 64-bit FNV-1a hash of the key text in its name); the file
// holds a format version and the full key, so a stale or corrupt file is
// detected (and rebuilt) rather than used.
#include <filesystem>
#include <optional>
#include <string>

#include "data/dataset.h"

namespace repro {

struct TokenizedSplits {
  Split train, val, test;
  int64_t vocab_size = 0;
};

std::filesystem::path token_cache_dir();
// 64-bit FNV-1a of `text` as 16 hex digits (the cache's file names; keys of content).
std::string fnv1a_hex(const std::string& text);
std::optional<TokenizedSplits> read_token_cache(const std::string& key);
void write_token_cache(const std::string& key, const TokenizedSplits& splits);  // atomic; failures only warn

}  // namespace repro
