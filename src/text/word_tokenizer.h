#pragma once
// Word-level tokenizer, as the DGSA paper's text setup: lower-case, split into
// words and punctuation, vocabulary from the training texts only.
//
// Tokens: maximal runs of ASCII letters/digits and non-ASCII (UTF-8) bytes, with
// apostrophes inside them ("don't"), or any other single non-space character.
// The equivalent regex: [a-z0-9\x80-\xff]+('[a-z0-9\x80-\xff]+)*|[^\sa-z0-9\x80-\xff]
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "text/tokenizer.h"

namespace repro {

std::vector<std::string> word_tokens(const std::string& text, bool lowercase);

class WordTokenizer : public Tokenizer {
 public:
  // Keeps tokens seen at least `min_freq` times, the most frequent first (ties by
  // byte order), at most `max_vocab` entries including the three specials.
  WordTokenizer(const std::vector<std::string>& texts, int64_t min_freq, int64_t max_vocab, bool lowercase);
  // A fixed vocabulary (text.vocab_source=file): the three specials, then `word_list`'s
  // lines in order (trailing CR and spaces trimmed; blank lines, repeats and the specials' own
  // names skipped), at most `max_vocab` entries in all. Words are kept as written: with
  // `lowercase`, a word holding an upper-case letter can never be produced by encode().
  static WordTokenizer from_word_list(const std::string& word_list, int64_t max_vocab, bool lowercase);
  std::vector<int64_t> encode(const std::string& text) const override;
  int64_t vocab_size() const override { return static_cast<int64_t>(words_.size()); }
  std::string token(int64_t id) const override;  // words()[id]: "<pad>", "<unk>", "<cls>", then the words
  const std::vector<std::string>& words() const { return words_; }

 private:
  WordTokenizer(std::vector<std::string> words, bool lowercase);
  void index_words();

  bool lowercase_;
  std::vector<std::string> words_;                // id -> token
  std::unordered_map<std::string, int64_t> ids_;  // token -> id
};

}  // namespace repro
