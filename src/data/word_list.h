#pragma once
// Where a run's word vocabulary comes from (text.vocab_source): the training texts
// (text.min_freq, text.max_vocab), or a word list shipped with the dataset
// (text.vocab_file, e.g. IMDB's aclImdb/imdb.vocab) in file order, capped by text.max_vocab.
#include <memory>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "data/text.h"
#include "spec/options.h"
#include "text/tokenizer.h"

namespace repro {

// A run's tokenizer: text.tokenizer trained on `train_texts` (text.vocab_source=train), or the
// word list text.vocab_file of `raw.word_lists` (file). Errors name the dataset and the key when
// the dataset has no such list, or the list has no words.
// `seed`: data.split_seed (SentencePiece's sampling).
std::unique_ptr<Tokenizer> run_tokenizer(const DatasetInfo& info, const RawText& raw,
                                         const std::vector<std::string>& train_texts, const TextOptions& text,
                                         int64_t seed);

// What the vocabulary adds to the token cache's key beyond the text.* keys: for a file
// vocabulary, the word list's size and hash (an edited list is not reused); "" otherwise.
std::string word_list_key(const DatasetInfo& info, const RawText& raw, const VocabOptions& vocab);

// A note for the run's record when the vocabulary is a word list ("" otherwise).
std::string word_list_note(const DatasetInfo& info, const VocabOptions& vocab, int64_t vocab_size);

}  // namespace repro
