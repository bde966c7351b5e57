#include "data/word_list.h"

#include <spdlog/spdlog.h>

#include "data/token_cache.h"
#include "spec/options.h"
#include "text/word_tokenizer.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

namespace {

// The word list text.vocab_file names; throws naming the dataset, the key and the lists it has.
const std::string& chosen_word_list(const DatasetInfo& info, const RawText& raw, const VocabOptions& vocab) {
  const auto it = raw.word_lists.find(vocab.file);
  if (it != raw.word_lists.end()) return it->second;
  std::vector<std::string> names;
  for (const auto& [name, bytes] : raw.word_lists) names.push_back(name);
  throw Error(
      "text.vocab_source=file: dataset " + info.name + " has no word list '" + vocab.file + "' (text.vocab_file); " +
      (names.empty() ? "it ships none (only imdb has one: aclImdb/imdb.vocab)" : "it has " + join(names, ", ")));
}

}  // namespace

std::unique_ptr<Tokenizer> run_tokenizer(const DatasetInfo& info, const RawText& raw,
                                         const std::vector<std::string>& train_texts, const TextOptions& text,
                                         int64_t seed) {
  const VocabOptions& vocab = text.vocab;
  if (vocab.source == VocabSource::Train) return train_tokenizer(train_texts, text, seed);
  auto tokenizer = std::make_unique<WordTokenizer>(
      WordTokenizer::from_word_list(chosen_word_list(info, raw, vocab), vocab.max_vocab, vocab.lowercase));
  if (tokenizer->vocab_size() <= kClsId + 1)
    throw Error("text.vocab_file=" + vocab.file + " of " + info.name + ": the word list has no words");
  spdlog::info("vocabulary of {}: {} entries from the word list {} (3 specials included)", info.name,
               tokenizer->vocab_size(), vocab.file);
  return tokenizer;
}

std::string word_list_key(const DatasetInfo& info, const RawText& raw, const VocabOptions& vocab) {
  if (vocab.source != VocabSource::File) return "";
  const std::string& words = chosen_word_list(info, raw, vocab);
  return "word_list_bytes=" + std::to_string(words.size()) + ";word_list_fnv1a=" + fnv1a_hex(words) + ";";
}

std::string word_list_note(const DatasetInfo& info, const VocabOptions& vocab, int64_t vocab_size) {
  if (vocab.source != VocabSource::File) return "";
  return "vocabulary: the word list " + vocab.file + " of " + info.name + ", " +
         std::to_string(vocab_size) + " entries (3 specials included)";
}

}  // namespace repro
