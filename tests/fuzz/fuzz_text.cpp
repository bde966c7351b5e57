// The text readers, through the dataset table as `repro run` loads them.
// Input: byte 0 picks the reader; the rest is
//   0  AG News CSV bytes (parse_ag_news_csv)
//   1  20 Newsgroups: files "PATH\nCONTENT" separated by NUL, PATH under
//      20news-bydate-PATH (e.g. "train/sci.space/1"); byte 0 / 4 % 3 picks
//      data.newsgroups_remove (none | headers | all)
//   2  IMDB: the same file list, PATH under aclImdb/ (e.g. "train/pos/0_9.txt")
//   3  Rotten Tomatoes: rt-polarity.pos, NUL, rt-polarity.neg
// The loaders run with fuzz::loader_options() (data.verify=off).
#include <cstdint>
#include <string>

#include "data/registry.h"
#include "data/text_sources.h"
#include "fuzz_common.h"

namespace {

namespace fs = std::filesystem;

// Writes (where possible) up to 32 "PATH\nCONTENT" entries (NUL-separated) under root/top.
void write_tree(const fs::path& root, const std::string& top, const std::string& listing) {
  for (const auto& entry : repro::fuzz::split_parts(listing, 32)) {
    const auto newline = entry.find('\n');
    const std::string path = repro::fuzz::safe_relative_path(entry.substr(0, newline), 4);
    repro::fuzz::try_write_bytes(root / (top + path),
                                 newline == std::string::npos ? std::string() : entry.substr(newline + 1));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace repro;
  if (size == 0) return 0;
  const int reader = data[0] % 4;
  static const char* const kRemove[] = {"none", "headers", "all"};
  const std::string remove = kRemove[(data[0] / 4) % 3];
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const fs::path root = fuzz::fresh_scratch();
  if (reader == 1) write_tree(root, "20news-bydate-", rest);
  if (reader == 2) write_tree(root, "aclImdb/", rest);
  if (reader == 3) {
    const auto parts = fuzz::split_parts(rest, 2);
    fuzz::write_bytes(root / "rt-polarity.pos", parts[0]);
    fuzz::write_bytes(root / "rt-polarity.neg", parts.size() > 1 ? parts[1] : "");
  }
  static const char* const kDatasets[] = {"ag_news", "newsgroups", "imdb", "rotten_tomatoes"};
  const char* dataset = kDatasets[reader];
  fuzz::expect_clean(dataset, [&] {
    if (reader == 0) {
      parse_ag_news_csv(rest, "train.csv");
      return;
    }
    DataOptions options = fuzz::loader_options();
    options.newsgroups_remove = enum_from_name<NewsgroupsRemove>(remove, "data.newsgroups_remove");
    find_dataset(dataset).load_text(root, options);
  });
  return 0;
}
