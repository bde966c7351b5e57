#include "text/word_tokenizer.h"

#include <algorithm>
#include <unordered_set>

#include "util/error.h"

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
  index_words();
}

WordTokenizer::WordTokenizer(std::vector<std::string> words, bool lowercase)
    : lowercase_(lowercase), words_(std::move(words)) {
  index_words();
}

void WordTokenizer::index_words() {
  for (size_t id = 0; id < words_.size(); ++id) ids_.emplace(words_[id], static_cast<int64_t>(id));
}

WordTokenizer WordTokenizer::from_word_list(const std::string& word_list, int64_t max_vocab, bool lowercase) {
  std::vector<std::string> words{"<pad>", "<unk>", "<cls>"};
  std::unordered_set<std::string> seen(words.begin(), words.end());
  size_t start = 0;
  while (start < word_list.size() && static_cast<int64_t>(words.size()) < max_vocab) {
    const size_t end = std::min(word_list.find('\n', start), word_list.size());
    std::string word = word_list.substr(start, end - start);
    start = end + 1;
    while (!word.empty() && std::isspace(static_cast<unsigned char>(word.back()))) word.pop_back();
    while (!word.empty() && std::isspace(static_cast<unsigned char>(word.front()))) word.erase(0, 1);
    if (!word.empty() && seen.insert(word).second) words.push_back(std::move(word));
  }
  return WordTokenizer(std::move(words), lowercase);
}

std::vector<int64_t> WordTokenizer::encode(const std::string& text) const {
  std::vector<int64_t> ids;
  for (const auto& token : word_tokens(text, lowercase_)) {
    const auto it = ids_.find(token);
    ids.push_back(it == ids_.end() ? kUnkId : it->second);
  }
  return ids;
}

std::string WordTokenizer::token(int64_t id) const {
  if (id < 0 || id >= vocab_size())
    throw Error("token id " + std::to_string(id) + " is outside the vocabulary (0 to " +
                std::to_string(vocab_size() - 1) + ")");
  return words_[static_cast<size_t>(id)];
}

}  // namespace repro
