// The paper files (experiments/paper/*.yaml) read by one strict reader (report/claims/paper_file): the DGSA file reads,
// and a table of bad inputs, each refused with FILE:LINE and what was expected (issue 49, point 5: a misspelt
// `ledgr:` made the ledger vanish, unknown item keys were dropped, a duplicate item or one with two statuses was
// printed both ways, a duplicate key resolved silently, an item for an unknown profile never appeared).
#include <filesystem>
#include <string>

#include "catch.h"
#include "fixtures.h"
#include "report/claims/paper_file.h"
#include "util/error.h"
#include "util/files.h"

using namespace repro;
using repro::test::Contains;

namespace {

const std::string kPaper = std::string(REPRO_SOURCE_DIR) + "/experiments/paper/dgsa.yaml";

// Lines 1-9; what a case appends starts at line 10.
const std::string kHead =
    "paper: P\n"
    "tables:\n"
    "  - table: 1\n"
    "    experiment: table1\n"
    "    n: 5\n"
    "    readings: {paper: as printed}\n"
    "    cells:\n"
    "      - {row: ViT, column: cifar10, mean: 75, std: 1}\n"
    "      - {row: DG, column: cifar10, mean: 77, std: 1}\n";

const std::string kItem = "  - {experiment: table1, item: a, paper: b, ours: c, status: open}\n";

std::string refusal(const std::filesystem::path& file, const std::string& text) {
  test::write_text(file, text);
  try {
    read_paper_file(file);
  } catch (const Error& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("the DGSA paper file reads: tables, readings, claims and ledger", "[report]") {
  const PaperFile file = read_paper_file(kPaper);
  REQUIRE(file.tables.size() == 4);
  CHECK(file.tables[1].metric == Metric::TestAcc);
  CHECK(file.tables[2].metric == Metric::Params);
  REQUIRE(file.tables[1].readings.size() == 3);
  CHECK(file.tables[1].readings[0].profile == "paper");
  CHECK((file.tables[1].readings[0].settings ==
         std::vector<std::pair<std::string, std::string>>{{"train.no_decay", "paper"}}));
  CHECK(file.tables[1].readings[1].name == "paper_vectors");
  CHECK(file.tables[1].readings[1].profile == "paper");
  CHECK((file.tables[1].readings[1].settings ==
         std::vector<std::pair<std::string, std::string>>{{"train.no_decay", "vectors_embeddings"}}));
  CHECK(file.tables[1].readings[2].profile == "paper_table6");
  CHECK(file.tables[1].readings[2].settings.empty());
  CHECK(file.claims.size() == 6);
  CHECK(file.ledger.size() == 18);
  for (const auto& item : file.ledger) CHECK(item.profile == "paper");
  CHECK(file.ledger[13].datasets == std::vector<std::string>{"newsgroups"});  // 20 Newsgroups text
}

TEST_CASE("bad paper files are refused at file:line with what was expected", "[report]") {
  test::TempDir dir("paper-file");
  const auto file = dir.path() / "p.yaml";
  const std::string claim = "claims:\n  - claim: x\n    experiment: table1\n    pairs: [[DG, ViT]]\n";
  struct Case {
    std::string what, text, expected;
  };
  const Case cases[] = {
      {"a misspelt ledger:", kHead + "ledgr:\n" + kItem,
       "p.yaml:10: unknown key 'ledgr' in a paper file; did you mean 'ledger'?"},
      {"an unknown top-level key", kHead + "notes: x\n",
       "p.yaml:10: unknown key 'notes' in a paper file; expected one of"},
      {"a misspelt item key", kHead + "ledger:\n  - {experiment: table1, item: a, paper: b, ours: c, stauts: open}\n",
       "p.yaml:11: unknown key 'stauts' in a ledger item; did you mean 'status'?"},
      {"an unknown item key",
       kHead + "ledger:\n  - {experiment: table1, item: a, paper: b, ours: c, status: open, "
               "nots: d}\n",
       "p.yaml:11: unknown key 'nots' in a ledger item; did you mean 'note'?"},
      {"a key twice in an item",
       kHead + "ledger:\n  - experiment: table1\n    item: a\n    paper: b\n    ours: c\n"
               "    status: open\n    status: paper\n",
       "p.yaml:16: key 'status' is given twice in this ledger item (first at line 15)"},
      {"an item twice", kHead + "ledger:\n" + kItem + kItem,
       "p.yaml:12: ledger item 'a' of table1 is given twice (first at line 11)"},
      {"an item with two statuses",
       kHead + "ledger:\n" + kItem + "  - {experiment: table1, item: a, paper: b, ours: c, status: differs}\n",
       "p.yaml:12: ledger item 'a' of table1 has two statuses: open (line 11) and differs"},
      {"an item for every profile and one profile",
       kHead + "ledger:\n" + kItem +
           "  - {experiment: table1, profile: paper, item: a, paper: b, "
           "ours: c, status: open}\n",
       "p.yaml:12: ledger item 'a' of table1 is given twice"},
      {"an unknown profile",
       kHead + "ledger:\n  - {experiment: table1, profile: papr, item: a, paper: b, ours: c, "
               "status: open}\n",
       "p.yaml:11: profile 'papr' is not a reading of experiment table1 (its table's readings: paper)"},
      {"an unknown status", kHead + "ledger:\n  - {experiment: table1, item: a, paper: b, ours: c, status: maybe}\n",
       "p.yaml:11: status: got 'maybe', expected one of paper | open | differs"},
      {"an experiment without a table",
       kHead + "ledger:\n  - {experiment: table9, item: a, paper: b, ours: c, "
               "status: open}\n",
       "p.yaml:11: experiment 'table9' has no table in this file"},
      {"a missing key", kHead + "ledger:\n  - {experiment: table1, item: a, paper: b, status: open}\n",
       "p.yaml:11: a ledger item needs 'ours'"},
      {"a list for a single value",
       kHead + "ledger:\n  - {experiment: table1, item: [a], paper: b, ours: c, "
               "status: open}\n",
       "p.yaml:11: item must be a single value"},
      {"an item's dataset not in the table",
       kHead + "ledger:\n  - {experiment: table1, item: a, paper: b, ours: c, "
               "status: open, datasets: [svhn]}\n",
       "p.yaml:11: dataset 'svhn' is not a column of experiment table1's table"},
      {"the ledger not a list", kHead + "ledger: {experiment: table1}\n", "p.yaml:10: ledger must be a list"},
      {"a claim's row",
       kHead + "claims:\n  - claim: x\n    experiment: table1\n    pairs: [[DG, VIT]]\n"
               "    datasets: [cifar10]\n",
       "p.yaml:13: row 'VIT' is not a row of the paper's Table 1"},
      {"a claim's dataset", kHead + claim + "    datasets: [svhn]\n",
       "p.yaml:14: dataset 'svhn' is not a column of the paper's Table 1"},
      {"a claim's experiment",
       kHead + "claims:\n  - claim: x\n    experiment: table2\n    pairs: [[DG, ViT]]\n"
               "    datasets: [cifar10]\n",
       "p.yaml:12: no table of this file gives test_acc of experiment 'table2'"},
      {"a claim's margin", kHead + claim + "    datasets: [cifar10]\n    margin: two\n",
       "p.yaml:15: margin 'two' is not a number"},
      {"a misspelt claim key", kHead + claim + "    datsets: [cifar10]\n",
       "p.yaml:14: unknown key 'datsets' in a claim; did you mean 'datasets'?"},
      {"a claim twice",
       kHead + claim +
           "    datasets: [cifar10]\n  - claim: x\n    experiment: table1\n"
           "    pairs: [[DG, ViT]]\n    datasets: [cifar10]\n",
       "p.yaml:15: claim 'x' is given twice (first at line 11)"},
      {"a pair twice",
       kHead + "claims:\n  - claim: x\n    experiment: table1\n    pairs: [[DG, ViT], [DG, ViT]]\n"
               "    datasets: [cifar10]\n",
       "p.yaml:13: pair [DG, ViT] is given twice"},
      {"a misspelt table key", "tables:\n  - table: 1\n    experiment: table1\n    cels: []\n",
       "p.yaml:4: unknown key 'cels' in a table; did you mean 'cells'?"},
      {"a misspelt cell key",
       "tables:\n  - table: 1\n    experiment: table1\n    cells:\n"
       "      - {row: ViT, column: cifar10, mean: 75, sd: 1}\n",
       "p.yaml:5: unknown key 'sd' in a cell; did you mean 'std'?"},
      {"a cell twice", kHead + "      - {row: ViT, column: cifar10, mean: 76, std: 1}\n",
       "p.yaml:10: cell (ViT, cifar10) of table 1 repeats line 8"},
      {"a table twice", kHead + "  - table: 1\n    experiment: table2\n    cells: []\n",
       "p.yaml:10: table 1 is given twice (first at line 3)"},
      {"a reading twice",
       "tables:\n  - table: 1\n    experiment: table1\n    readings:\n      paper: a\n"
       "      paper: b\n    cells: []\n",
       "p.yaml:6: reading 'paper' is given twice"},
      // ---- a reading that names settings (issue 66: the runs of a profile with the paper's weight-decay rule)
      {"a reading's unknown key",
       "tables:\n  - table: 1\n    experiment: table1\n    readings:\n      paper:\n"
       "        set: {train.no_decy: paper}\n        what: a\n    cells: []\n",
       "p.yaml:6: unknown key 'train.no_decy'; did you mean 'train.no_decay'?"},
      {"a reading's value the key does not take",
       "tables:\n  - table: 1\n    experiment: table1\n    readings:\n      paper:\n"
       "        set: {train.no_decay: vectors}\n        what: a\n    cells: []\n",
       "p.yaml:6: key 'train.no_decay': got 'vectors', expected one of paper | vectors_embeddings"},
      {"a reading's auto",
       "tables:\n  - table: 1\n    experiment: table1\n    readings:\n      paper:\n"
       "        set: {data.val_fraction: auto}\n        what: a\n    cells: []\n",
       "p.yaml:6: key 'data.val_fraction': 'auto' is resolved per dataset before a run starts"},
      {"a reading's set not a map",
       "tables:\n  - table: 1\n    experiment: table1\n    readings:\n      paper:\n"
       "        set: [train.no_decay]\n        what: a\n    cells: []\n",
       "p.yaml:6: set is a map {KEY: VALUE} of the settings its runs resolved"},
      {"a misspelt reading key",
       "tables:\n  - table: 1\n    experiment: table1\n    readings:\n      paper:\n"
       "        sett: {train.no_decay: paper}\n        what: a\n    cells: []\n",
       "p.yaml:6: unknown key 'sett' in a reading; did you mean 'set'?"},
      {"a reading without what it reads",
       "tables:\n  - table: 1\n    experiment: table1\n    readings:\n      paper:\n"
       "        set: {train.no_decay: paper}\n    cells: []\n",
       "p.yaml:6: a reading needs 'what'"},
      {"two readings of one profile that can hold one run",
       "tables:\n  - table: 1\n    experiment: table1\n    readings:\n      paper: a\n"
       "      paper_paper: {profile: paper, set: {train.no_decay: paper}, what: b}\n    cells: []\n",
       "p.yaml:6: readings 'paper' (line 5) and 'paper_paper' can hold the same runs of profile 'paper': set one key "
       "to a different value in each"},
      {"two readings that set one value",
       "tables:\n  - table: 1\n    experiment: table1\n    readings:\n"
       "      a: {profile: paper, set: {train.no_decay: paper}, what: a}\n"
       "      b: {profile: paper, set: {train.no_decay: paper, train.lr: 0.001}, what: b}\n    cells: []\n",
       "p.yaml:6: readings 'a' (line 5) and 'b' can hold the same runs of profile 'paper'"},
      {"an unknown metric", "tables:\n  - table: 1\n    experiment: table1\n    metric: accuracy\n    cells: []\n",
       "p.yaml:4: unknown metric 'accuracy' (known: params, train_loss"},
      {"an accuracy above 100",
       "tables:\n  - table: 1\n    experiment: table1\n    cells:\n"
       "      - {row: ViT, column: cifar10, mean: 175}\n",
       "p.yaml:5: mean 175 is outside 0-100 (accuracies are in %)"},
      {"no tables", "paper: P\n", "p.yaml:1: a paper file needs 'tables'"},
      {"not a map", "- 1\n", "p.yaml: expected a map with 'tables'"},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    CHECK_THAT(refusal(file, c.text), Contains(c.expected));
  }
  // Sound variants of the same file are read.
  CHECK(refusal(file, kHead + "ledger:\n" + kItem +
                          "  - {experiment: table1, profile: paper, item: z, paper: b, ours: c, status: differs, "
                          "datasets: [cifar10]}\n") == "(accepted)");
  const PaperFile read = read_paper_file(file);
  REQUIRE(read.ledger.size() == 2);
  CHECK(read.ledger[1].datasets == std::vector<std::string>{"cifar10"});
  CHECK(read.ledger[1].where == file.string() + ":12");
}

TEST_CASE("a paper file that is not a regular file, or too large, is refused before it is read", "[report]") {
  test::TempDir dir("paper-file-kind");
  CHECK_THROWS_WITH(read_paper_file(dir.path()), Contains("is a folder, expected a paper file (YAML)"));
  CHECK_THROWS_WITH(read_paper_file(dir.path() / "absent.yaml"),
                    Contains("absent.yaml") && Contains("No such file"));
  const auto big = dir.path() / "big.yaml";
  test::write_text(big, "paper: '" + std::string(kSpecBytes, 'x') + "'\n");
  CHECK_THROWS_WITH(read_paper_file(big), Contains("more than the 16 MiB a paper file (YAML) may hold"));
}

TEST_CASE("a reading names a profile, or the runs of a profile with the settings it names", "[report]") {
  test::TempDir dir("paper-file-readings");
  const auto file = dir.path() / "p.yaml";
  test::write_text(file,
                   "tables:\n  - table: 1\n    experiment: table1\n    readings:\n"
                   "      paper: {set: {train.no_decay: paper, train.lr: 3e-4}, what: as printed}\n"
                   "      paper_vectors: {profile: paper, set: {train.no_decay: vectors_embeddings}, what: before 0.3}\n"
                   "      short: a CPU budget\n"
                   "    cells: []\n"
                   "ledger:\n  - {experiment: table1, profile: paper, item: a, paper: b, ours: c, status: open}\n");
  const PaperFile read = read_paper_file(file);
  const auto& readings = read.tables.at(0).readings;
  REQUIRE(readings.size() == 3);
  CHECK(readings[0].name == "paper");
  CHECK(readings[0].profile == "paper");  // the name, when the reading names no profile
  using Settings = std::vector<std::pair<std::string, std::string>>;
  CHECK(readings[0].settings == Settings{{"train.no_decay", "paper"}, {"train.lr", "0.0003"}});  // as the key table
  CHECK(readings[1].profile == "paper");
  CHECK(readings[1].where == file.string() + ":6");
  CHECK(readings[2].settings.empty());
  CHECK(reading_label(readings[0]) == "`paper` (train.no_decay: paper, train.lr: 0.0003)");
  CHECK(reading_label(readings[1]) == "`paper_vectors` (profile `paper`, train.no_decay: vectors_embeddings)");
  CHECK(reading_label(readings[2]) == "`short`");
}
