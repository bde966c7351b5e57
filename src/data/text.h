#pragma once
// Text datasets before tokenization: texts (UTF-8) with integer labels.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "data/dataset.h"

namespace repro {

struct TextSplit {
  std::vector<std::string> texts;
  std::vector<int64_t> labels;
  int64_t size() const { return static_cast<int64_t>(labels.size()); }
  void add(std::string text, int64_t label) {
    texts.push_back(std::move(text));
    labels.push_back(label);
  }
};

struct RawText : DataNotes {             // notes: partial data, known copies, unverified files
  TextSplit train, test;                 // test is empty when the dataset has no official split
  std::vector<std::string> file_checks;  // one line per file: where it was found and what was checked
  // Word lists shipped with the dataset, by file name (IMDB: "imdb.vocab" from aclImdb/), for
  // text.vocab_source=file; the bytes as read.
  std::map<std::string, std::string> word_lists;
  // The class names by label where the files name them (20 Newsgroups: its group folders, in label order); empty
  // where DatasetInfo::class_names has them.
  std::vector<std::string> class_names;
};

// Bytes in Windows-1252 (or Latin-1) -> UTF-8.
std::string cp1252_to_utf8(const std::string& bytes);

}  // namespace repro
