// Vocabulary readings of Table 6: a dataset's own word list as the vocabulary
// (text.vocab_source=file), and `repro params` saying which reading matches each paper cell.
#include "catch.h"
#include <cstdlib>
#include <regex>

#include "data/loader.h"
#include "data/prepare_text.h"
#include "data/text_sources.h"
#include "fixtures.h"
#include "models/param_count.h"
#include "run_repro.h"
#include "spec/presets.h"
#include "text/word_tokenizer.h"

using namespace repro;
using repro::test::Contains;

namespace {

Config vocab_config(const std::vector<std::pair<std::string, std::string>>& settings) {
  Config config = Config::defaults();
  config.set("model.kind", "text", "t");
  config.set("data.verify", "off", "t");
  config.set("text.max_len", "8", "t");
  for (const auto& [key, value] : settings) config.set(key, value, "t");
  resolve_settings(config, imdb_info().traits());
  return config;
}

RunOptions vocab_inputs(const std::vector<std::pair<std::string, std::string>>& settings) {
  return test::input_options(vocab_config(settings));
}

// <root>/imdb/aclImdb.tar.gz in the official layout: 4 reviews per class folder, and
// aclImdb/imdb.vocab (when `vocab` is not empty).
void write_imdb_fixture(const std::filesystem::path& root, const std::string& vocab) {
  std::vector<std::pair<std::string, std::string>> members;
  if (!vocab.empty()) members.emplace_back("aclImdb/imdb.vocab", vocab);
  for (const std::string split : {"train", "test"})
    for (const std::string label : {"pos", "neg"})
      for (int i = 0; i < 4; ++i)
        members.emplace_back("aclImdb/" + split + "/" + label + "/" + std::to_string(i) + "_7.txt",
                             label == "pos" ? "A great film, great<br />acting zebra" : "A bad film, bad plot");
  test::write_tar(root / "imdb/aclImdb.tar.gz", members);
}

// The count `repro params` printed for (reading, model, dataset).
int64_t printed_count(const std::string& output, const std::string& reading, const std::string& model) {
  std::smatch found;
  const std::regex line("\\| " + reading + " \\| " + model + " \\| fashion_mnist \\| (\\d+) ");
  REQUIRE(std::regex_search(output, found, line));
  return std::stoll(found[1]);
}

}  // namespace

TEST_CASE("a word-list vocabulary: the specials, then the list's words in file order; others are <unk>", "[data]") {
  const auto tokenizer = WordTokenizer::from_word_list("the\nmovie\r\nsci-fi\n\nthe\n<unk>\ngreat", 100, true);
  CHECK(tokenizer.words() ==
        std::vector<std::string>{"<pad>", "<unk>", "<cls>", "the", "movie", "sci-fi", "great"});  // repeats skipped
  CHECK(tokenizer.encode("The movie was GREAT") == std::vector<int64_t>{3, 4, kUnkId, 6});
  CHECK(WordTokenizer::from_word_list("the\nmovie\nsci-fi\n", 5, true).words() ==
        std::vector<std::string>{"<pad>", "<unk>", "<cls>", "the", "movie"});  // max_vocab caps it, specials included
}

TEST_CASE("text.vocab_source=file reads aclImdb/imdb.vocab from the archive; the token cache keeps the two apart",
          "[data]") {
  test::TempDir dir("vocab-file");
  test::ScopedCache cache;
  write_imdb_fixture(dir.path(), "film\ngreat\nbad\nunused\nwords\n");
  DataLoader loader(dir.path());
  const RunData from_train = loader.run_data("imdb", vocab_inputs({{"text.min_freq", "1"}}));
  const RunData from_file = loader.run_data("imdb", vocab_inputs({{"text.vocab_source", "file"}}));
  CHECK(from_file.info.vocab_size == 3 + 5);
  CHECK(from_train.info.vocab_size != from_file.info.vocab_size);
  // "A bad film, bad plot": <cls> a? bad film , bad plot -> unknowns are 1
  const auto neg = from_file.test.inputs[0];
  CHECK(neg.equal(torch::tensor(std::vector<int64_t>{kClsId, kUnkId, 5, 3, kUnkId, 5, kUnkId, kPadId})));
  bool noted = false;
  for (const auto& note : from_file.notes)
    noted = noted || note.find("word list imdb.vocab of imdb, 8 entries") != std::string::npos;
  CHECK(noted);
  DataLoader again(dir.path());  // from the token cache: the same vocabulary sizes, not the other's
  CHECK(again.run_data("imdb", vocab_inputs({{"text.vocab_source", "file"}})).info.vocab_size == 8);
  CHECK(again.run_data("imdb", vocab_inputs({{"text.min_freq", "1"}})).info.vocab_size == from_train.info.vocab_size);
  CHECK(
      loader.run_data("imdb", vocab_inputs({{"text.vocab_source", "file"}, {"text.max_vocab", "5"}})).info.vocab_size ==
      5);
  CHECK_THROWS_WITH(
      loader.run_data("imdb", vocab_inputs({{"text.vocab_source", "file"}, {"text.vocab_file", "x.txt"}})),
      Contains("dataset imdb has no word list 'x.txt' (text.vocab_file); it has imdb.vocab"));
}

TEST_CASE("text.vocab_source=file on a dataset without a word list, or with sentencepiece, is an error", "[data]") {
  test::ScopedCache cache;
  RawText raw;  // Rotten Tomatoes ships no word list
  for (int i = 0; i < 40; ++i) raw.train.add(i % 2 ? "good fine" : "bad poor", i % 2);
  const DatasetInfo info = rotten_tomatoes_info();
  const auto prepare = [&](const Config& config) {  // text_options refuses a word list with sentencepiece
    return prepare_text_run_data(info, raw, data_options(config), text_options(config));
  };
  CHECK_THROWS_WITH(prepare(vocab_config({{"text.vocab_source", "file"}})),
                    Contains("text.vocab_source=file: dataset rotten_tomatoes has no word list 'imdb.vocab'") &&
                        Contains("it ships none"));
  CHECK_THROWS_WITH(prepare(vocab_config({{"text.vocab_source", "file"}, {"text.tokenizer", "sentencepiece"}})),
                    Contains("text.vocab_source=file needs text.tokenizer=word"));
  Config config = Config::defaults();
  CHECK_THROWS_WITH(config.set("text.vocab_source", "imdb", "spec.yaml:3"),
                    Contains("spec.yaml:3") && Contains("text.vocab_source") && Contains("train | file"));
}

TEST_CASE("a count matches a printed number within 1% or when it rounds to it", "[report]") {
  CHECK(printed_half_unit("25.7M") == Approx(50000));
  CHECK(printed_half_unit("12M") == Approx(500000));
  CHECK(printed_half_unit("3.77M") == Approx(5000));
  CHECK(printed_half_unit("840k") == Approx(500));
  CHECK(printed_half_unit("") == 0);
  CHECK(printed_half_unit("about 3M") == 0);
  const PrintedMatch close = match_printed(25761778, 25.7e6, "25.7M");
  CHECK(close.within_1_percent);
  CHECK_FALSE(close.within_rounding);  // 25.76M prints as 25.8M
  const PrintedMatch rounds = match_printed(12400000, 12e6, "12M");
  CHECK_FALSE(rounds.within_1_percent);
  CHECK(rounds.within_rounding);
  CHECK_FALSE(match_printed(12967860, 12e6, "12M").matches());
}

TEST_CASE("repro params --compare names the reading that matches each paper cell, or says none does", "[cli]") {
  test::TempDir dir("params-readings");
  const auto spec = dir.path() / "tiny.yaml";
  test::write_text(spec,
                   "experiment: tiny\ndatasets: [fashion_mnist]\nmodel: {dim: 16, depth: 1, heads: 2, patch: 7}\n"
                   "models:\n  - name: a\n  - name: b\n    model: {dim: 32}\n"
                   "profiles:\n  deep: {model.depth: 2}\n");
  const test::Result plain = test::run_repro("params " + spec.string());
  INFO(plain.output);
  REQUIRE(plain.exit_code == 0);
  CHECK_THAT(plain.output, Contains("- `deep`: model.depth=2"));
  const int64_t deep_a = printed_count(plain.output, "deep", "a");
  const int64_t shallow_b = printed_count(plain.output, "spec", "b");
  const auto paper = dir.path() / "paper.yaml";
  test::write_text(paper,
                   "tables:\n  - table: 9\n    experiment: tiny\n    metric: params\n    cells:\n"
                   "      - {row: a, column: fashion_mnist, mean: " +
                       std::to_string(deep_a * 1.004) + ", printed: \"" + std::to_string(deep_a + 1000) +
                       "\"}\n"
                       "      - {row: b, column: fashion_mnist, mean: " +
                       std::to_string(shallow_b * 10) + ", printed: \"" + std::to_string(shallow_b * 10) + "\"}\n");
  const test::Result compared = test::run_repro("params " + spec.string() + " --compare " + paper.string());
  INFO(compared.output);
  REQUIRE(compared.exit_code == 0);
  CHECK_THAT(compared.output, Contains("### Paper cells (Table 9)") && Contains("within 1% of the printed number"));
  CHECK(std::regex_search(
      compared.output,
      std::regex("\\| a \\| fashion_mnist \\| \\d+ \\| deep [0-9.]+M \\(-0\\.\\d+%, within 1%\\) \\|")));
  CHECK(
      std::regex_search(compared.output, std::regex("\\| b \\| fashion_mnist \\| \\d+ \\| no reading within 1% \\|")));
  CHECK_THAT(compared.output, Contains("1 of 2 counted cells") && Contains("no reading explains b × fashion_mnist"));
  const test::Result one = test::run_repro("params " + spec.string() + " --readings spec");
  CHECK_THAT(one.output, !Contains("deep") && Contains("| a | fashion_mnist |"));
  const test::Result bad = test::run_repro("params " + spec.string() + " --readings shallow");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Contains("'shallow' is not a reading") && Contains("all, spec, deep"));
}

TEST_CASE("a spec of 10^11 parameters is counted, listed and refused from its options: nothing is allocated", "[cli]") {
  test::TempDir dir("params-huge");
  const auto spec = dir.path() / "big.yaml";
  // 32 blocks of width 16384 with an MLP of 4 x D: 12 D^2 a block, about 1.03 x 10^11 parameters.
  test::write_text(spec,
                   "experiment: big\ndatasets: [fashion_mnist]\nseeds: [0]\n"
                   "model: {dim: 16384, depth: 32, heads: 128, patch: 7, ffn: {kind: mlp, ratio: 4}}\n");
  const std::string out = " --out " + (dir.path() / "out").string();
  // 4 GB of address space: a build of the model (400 GB of float32 weights alone) could not even start.
  const std::string limited = "ulimit -v 4000000; exec " + std::string(REPRO_BINARY) + " ";
  const auto count_in = [](const std::string& output) {
    std::smatch found;
    REQUIRE(std::regex_search(output, found, std::regex("(\\d{12}) parameters")));
    return std::stoll(found[1]);
  };

  const auto dry = test::run_command(limited + "run " + spec.string() + " --dry-run" + out);
  INFO(dry.output);
  CHECK(dry.exit_code == 0);
  CHECK(count_in(dry.output) > 100'000'000'000LL);
  CHECK_THAT(dry.output, Contains("a real run would stop here") && Contains("GiB to train") &&
                             Contains("16 bytes a parameter") && Contains("Nothing was allocated"));

  const auto run = test::run_command(limited + "run " + spec.string() + out);
  INFO(run.output);
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.output, Contains("repro: error: ") && Contains("big.yaml") && Contains("GiB to train") &&
                             Contains("make the model smaller"));
  CHECK_FALSE(std::filesystem::exists(dir.path() / "out"));  // refused before the plan was written

  const auto params = test::run_command(limited + "params " + spec.string());
  INFO(params.output);
  CHECK(params.exit_code == 0);
  CHECK_THAT(params.output, Contains(" | fashion_mnist | 1030"));
}
