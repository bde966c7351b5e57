// Inputs that broke a libFuzzer target's rule (tests/fuzz; found by the fuzzer or
// written while writing the targets, docs/reliability.md says which), replayed
// through the same function the target calls. Each used to crash, hang, trip a
// sanitizer or escape as an exception other than repro::Error; each test asserts
// the outcome the fix gives.
#include <cstdio>
#include <string>

#include "catch.h"
#include "data/idx.h"
#include "data/registry.h"
#include "data/sources.h"
#include "fixtures.h"
#include "report/claims/paper_file.h"
#include "report/records/read_record.h"
#include "spec/experiment.h"
#include "util/error.h"

using namespace repro;

namespace {

// A one-member ustar archive whose header claims `claimed_size` bytes (base-256,
// as GNU tar writes sizes of 8 GiB and more) while holding `data`.
std::string ustar_claiming(const std::string& name, const std::string& data, uint64_t claimed_size) {
  std::string header(512, '\0');
  header.replace(0, name.size(), name);
  header.replace(100, 8, "0000644", 8);
  header.replace(108, 8, "0000000", 8);
  header.replace(116, 8, "0000000", 8);
  header[124] = static_cast<char>(0x80);
  for (int k = 0; k < 8; ++k) header[128 + k] = static_cast<char>(claimed_size >> (56 - 8 * k));
  header.replace(136, 12, "00000000000", 12);
  header.replace(148, 8, "        ");
  header[156] = '0';
  header.replace(257, 8,
                 "ustar\0"
                 "00",
                 8);
  unsigned sum = 0;
  for (const char c : header) sum += static_cast<unsigned char>(c);
  std::snprintf(&header[148], 8, "%06o", sum);
  header[155] = ' ';
  std::string body = data + std::string((512 - data.size() % 512) % 512, '\0');
  return header + body + std::string(1024, '\0');
}

}  // namespace

TEST_CASE("fuzz idx: an image file holding 0 images gives an empty tensor (was memcpy from a null pointer)",
          "[data][fuzz]") {
  const auto images = parse_idx_images(test::idx_images(0, 28, 28), "empty-idx3-ubyte");
  CHECK(images.sizes() == torch::IntArrayRef({0, 1, 28, 28}));
}

TEST_CASE("fuzz spec: an alias bomb is checked once per node, not once per expansion (was a hang)", "[spec][fuzz]") {
  test::TempDir dir("fuzz-alias-bomb");
  // x9 expands to 10^10 scalars through aliases; the file is 9 short lines.
  std::string text = "datasets: [fashion_mnist]\nx0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
  for (int i = 1; i <= 9; ++i) {
    const std::string previous = "*a" + std::to_string(i - 1);
    text += "x" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + previous;
    for (int k = 1; k < 10; ++k) text += ", " + previous;
    text += "]\n";
  }
  test::write_text(dir.path() / "bomb.yaml", text);
  CHECK_THROWS_WITH(load_experiment((dir.path() / "bomb.yaml").string()),
                    repro::test::Contains("unknown top-level key 'x0'"));
}

TEST_CASE("fuzz spec: a duplicate key inside an aliased mapping is still reported", "[spec][fuzz]") {
  test::TempDir dir("fuzz-alias-duplicate");
  test::write_text(dir.path() / "spec.yaml", "datasets: [fashion_mnist]\nmodel: &m {dim: 32, dim: 64}\n");
  CHECK_THROWS_WITH(load_experiment((dir.path() / "spec.yaml").string()), repro::test::Contains("duplicate key 'model.dim'"));
}

TEST_CASE("fuzz archive: a member claiming 2^63-2 bytes is a clean error (was std::length_error)", "[data][fuzz]") {
  test::TempDir dir("fuzz-huge-member");
  const auto archive = dir.path() / "data.tar";
  test::write_bytes(archive, ustar_claiming("a.bin", "0123456789", INT64_MAX - 1), false);
  const auto read_all = [&] {
    for_each_member(archive, [](const std::string&, const std::function<std::string()>& read) { read(); });
  };
  CHECK_THROWS_WITH(read_all(), repro::test::Contains("a.bin is truncated or corrupt"));
  // The same header with its true size reads normally.
  test::write_bytes(archive, ustar_claiming("a.bin", "0123456789", 10), false);
  std::string bytes;
  for_each_member(archive, [&](const std::string&, const std::function<std::string()>& read) { bytes = read(); });
  CHECK(bytes == "0123456789");
}

TEST_CASE("fuzz archive: an IMDB member path of 100,000 digits is skipped (was a std::regex stack overflow)",
          "[data][fuzz]") {
  test::TempDir dir("fuzz-imdb-long-path");
  test::write_tar(dir.path() / "imdb.tar.gz", {{"aclImdb/train/pos/" + std::string(100000, '7') + "_1.txt", "good"}});
  Config config = Config::defaults();
  config.set("data.verify", "off", "test");
  config.set("data.val_fraction", "0.2", "test");  // as the plan resolves "auto" for a text dataset
  CHECK_THROWS_WITH(find_dataset("imdb").load_text(dir.path(), data_options(config)), repro::test::Contains("aclImdb"));
}

TEST_CASE("fuzz paper: a table number or n beyond int's range is an error (was an undefined double-to-int cast)",
          "[report][fuzz]") {
  test::TempDir dir("fuzz-paper-int");
  const auto paper = dir.path() / "paper.yaml";
  const std::string cells = "    cells: [{row: ViT, column: cifar10, mean: 80}]\n";
  test::write_text(paper, "tables:\n  - table: 5.66667e19\n    experiment: table1\n" + cells);
  CHECK_THROWS_WITH(read_paper_file(paper).tables, repro::test::Contains("paper.yaml:2: table '5.66667e19' is not a whole number"));
  test::write_text(paper, "tables:\n  - table: 1\n    experiment: table1\n    n: -1e300\n" + cells);
  CHECK_THROWS_WITH(read_paper_file(paper).tables, repro::test::Contains("paper.yaml:4: n '-1e300' is not a whole number"));
  test::write_text(paper, "tables:\n  - table: 1\n    experiment: table1\n    n: 3\n" + cells);
  CHECK(read_paper_file(paper).tables.at(0).n == 3);
}

TEST_CASE("fuzz report: summary.json fields of the wrong type are a corrupt record (was nlohmann's type_error)",
          "[report][fuzz]") {
  test::TempDir dir("fuzz-report-types");
  const auto run = dir.path() / "exp" / "ds" / "m" / "seed_0";
  const std::string head = R"({"status": "complete", "experiment": "exp", "model_config": "m", "dataset": "ds",
                                "seed": 0, )";
  const std::string selected = R"("selected": {"epoch": 1, "test_acc": 50})";
  const std::pair<std::string, std::string> cases[] = {
      {R"("data": {"partial": 4}, )" + selected, "'data.partial' is 4, expected true or false"},
      {R"("epochs_run": "2", )" + selected, "'epochs_run' is \"2\", expected a whole number"},
      {R"("epochs_run": 1, "selected": {"epoch": 1.5, "test_acc": 50})", "'selected.epoch' is 1.5, expected a whole number"}};
  for (const auto& [fields, expected] : cases) {
    test::write_text(run / "summary.json", head + fields + "}");
    test::write_text(run / "metrics.csv",
                     "epoch,step,lr,train_loss,train_acc,val_loss,val_acc,test_loss,test_acc,seconds\n"
                     "1,4,0.001,0.6,70,0.7,65,0.7,50,1.5\n");
    const RecordRead read = read_run_for_table(run, Metric::TestAcc, nullptr);
    INFO(fields);
    CHECK(read.result.state == RunState::Corrupt);
    CHECK_THAT(read.result.problem, repro::test::Contains("summary.json") && repro::test::Contains(expected));
  }
}
