#include "text/word_tokenizer.h"

#include <algorithm>

namespace repro {

namespace {

bool word_byte(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c >= 0x80; }

}  // namespace

std::vector<std::string> word_tokens(const std::string& text, bool lowercase) {
  std::vector<std::string> tokens;
  std::string lowered = text;
  if (lowercase)
    for (char& c : lowered)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  const auto at = [&](size_t i) { return static_cast<unsigned char>(lowered[i]); };
  size_t i = 0;
  while (i < lowered.size()) {
    const unsigned char c = at(i);
    if (std::isspace(c)) {
      ++i;
    } else if (word_byte(lowercase ? c : static_cast<unsigned char>(std::tolower(c)))) {
      size_t j = i;
      while (j < lowered.size()) {
        if (word_byte(lowercase ? at(j) : static_cast<unsigned char>(std::tolower(at(j)))))
          ++j;
        else if (at(j) == '\'' && j + 1 < lowered.size() && word_byte(at(j + 1)))
          ++j;
        else
          break;
      }
      tokens.push_back(lowered.substr(i, j - i));
      i = j;
    } else {
      tokens.push_back(lowered.substr(i, 1));
      ++i;
    }
  }
  return tokens;
}

WordTokenizer::WordTokenizer(const std::vector<std::string>& texts, int64_t min_freq, int64_t max_vocab, bool lowercase)
    : lowercase_(lowercase), words_{"<pad>", "<unk>", "<cls>"} {
  std::unordered_map<std::string, int64_t> counts;
  for (const auto& text : texts)
    for (auto& token : word_tokens(text, lowercase)) ++counts[token];
  std::vector<std::pair<std::string, int64_t>> kept;
  for (auto& [token, count] : counts)
    if (count >= min_freq) kept.emplace_back(token, count);
  std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  for (const auto& [token, count] : kept) {
    if (static_cast<int64_t>(words_.size()) >= max_vocab) break;
    words_.push_back(token);
  }
  for (size_t id = 0; id < words_.size(); ++id) ids_[words_[id]] = static_cast<int64_t>(id);
}

std::vector<int64_t> WordTokenizer::encode(const std::string& text) const {
  std::vector<int64_t> ids;
  for (const auto& token : word_tokens(text, lowercase_)) {
    const auto it = ids_.find(token);
    ids.push_back(it == ids_.end() ? kUnkId : it->second);
  }
  return ids;
}

}  // namespace repro
