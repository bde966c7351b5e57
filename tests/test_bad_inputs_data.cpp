// Bad data inputs, one row each: every one must fail to load with a repro::Error
// whose message names the file (or split, or setting) and what was expected.
// Rows load through DataLoader, as `repro run` does, with data.verify=off unless a
// row sets it (fixtures never match the official checksums).
#include "catch.h"
#include <cstdlib>
#include <functional>

#include "data/loader.h"
#include "data/registry.h"
#include "fixtures.h"
#include "spec/presets.h"
#include "util/error.h"
#include "util/files.h"

using namespace repro;

namespace {

namespace fs = std::filesystem;
using Writer = std::function<void(const fs::path& root)>;

struct DataBadInput {
  const char* what;
  const char* dataset;
  std::vector<std::pair<std::string, std::string>> settings;  // data.* keys
  Writer write;
  std::vector<std::string> expected;  // parts of the message
};

// The message of the repro::Error that loading throws; "" when it loads, and a
// description of any other exception (which fails the row).
std::string load_error(const DataBadInput& row, const fs::path& root) {
  try {
    Config config = Config::defaults();
    config.set("data.verify", "off", "row");
    const DatasetInfo info = find_dataset(row.dataset).info();
    if (info.modality == Modality::Text) config.set("model.kind", "text", "row");
    for (const auto& [key, value] : row.settings) config.set(key, value, "row");
    resolve_settings(config, info.traits());
    row.write(root);
    DataLoader(root).run_data(row.dataset, test::input_options(config));
    return "";
  } catch (const Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("not a repro::Error: ") + e.what();
  }
}

// Fashion-MNIST fixture (40 train, 20 test) with one file replaced by `bytes` (gzip-compressed when `gz`).
Writer fashion_with(const std::string& file, const std::string& bytes, bool gz = true) {
  return [=](const fs::path& root) {
    test::write_fashion_fixture(root, 40, 20);
    test::write_bytes(root / "fashion_mnist" / file, bytes, gz);
  };
}

std::string truncated(std::string bytes, size_t cut) {
  bytes.resize(bytes.size() - cut);
  return bytes;
}

std::string with_byte(std::string bytes, size_t at, char value) {
  bytes[at] = value;
  return bytes;
}

// CIFAR-10 fixture (5 x 20 train, 10 test) with one file replaced.
Writer cifar_with(const std::string& file, const std::string& bytes) {
  return [=](const fs::path& root) {
    test::write_cifar10_fixture(root, 20, 10);
    test::write_bytes(root / "cifar10/cifar-10-batches-bin" / file, bytes, false);
  };
}

Writer rt_files(const std::string& pos, const std::string& neg) {
  return [=](const fs::path& root) {
    test::write_tar(root / "rotten_tomatoes/rt-polaritydata.tar.gz",
                    {{"rt-polaritydata/rt-polarity.pos", pos}, {"rt-polaritydata/rt-polarity.neg", neg}});
  };
}

Writer ag_test(const std::string& csv) {
  return [=](const fs::path& root) { test::write_bytes(root / "ag_news/ag_news_csv/test.csv", csv, false); };
}

// IMDB folder with 2 reviews in each class folder, except those in `skip`.
Writer imdb_folder(const std::string& skip) {
  return [=](const fs::path& root) {
    for (const std::string folder : {"train/pos", "train/neg", "test/pos", "test/neg"})
      for (int i = 0; i < 2 && folder != skip; ++i)
        test::write_text(root / "imdb/aclImdb" / folder / (std::to_string(i) + "_8.txt"), folder + " review");
  };
}

Writer newsgroups(const std::vector<std::string>& posts) {
  return [=](const fs::path& root) {
    for (const auto& path : posts) test::write_text(root / "20newsgroups" / path, "Subject: x\n\nbody of " + path);
  };
}

std::string lines(const std::string& word, int count) {
  std::string out;
  for (int i = 0; i < count; ++i) out += word + " " + std::to_string(i) + "\n";
  return out;
}

const std::string kImagesGz = "train-images-idx3-ubyte.gz", kLabelsGz = "train-labels-idx1-ubyte.gz";

const std::vector<DataBadInput>& data_bad_inputs() {
  static const std::vector<DataBadInput> table = {
      // IDX (Fashion-MNIST)
      {"truncated IDX pixels", "fashion_mnist", {}, fashion_with(kImagesGz, truncated(test::idx_images(40, 28, 28), 100)),
       {kImagesGz, "truncated IDX file", "header implies"}},
      {"IDX image header cut short", "fashion_mnist", {}, fashion_with(kImagesGz, std::string("\0\0\x08\x03\0\0", 6)),
       {kImagesGz, "shorter than its 16-byte header"}},
      {"label magic in an image file", "fashion_mnist", {}, fashion_with(kImagesGz, test::idx_images(40, 28, 28, 2049)),
       {kImagesGz, "bad IDX magic number 2049, expected 2051"}},
      {"image magic in a label file", "fashion_mnist", {}, fashion_with(kLabelsGz, test::idx_labels(40, 10, 2051)),
       {kLabelsGz, "bad IDX magic number 2051, expected 2049"}},
      {"label count larger than the file", "fashion_mnist", {},
       fashion_with(kLabelsGz, with_byte(test::idx_labels(40, 10), 7, 50)), {kLabelsGz, "truncated IDX file"}},
      {"bytes after the last label", "fashion_mnist", {}, fashion_with(kLabelsGz, test::idx_labels(40, 10) + "xx"),
       {kLabelsGz, "oversized IDX file"}},
      {"label beyond the classes", "fashion_mnist", {}, fashion_with(kLabelsGz, test::idx_labels(40, 12)),
       {kLabelsGz, "label 10 at record 10", "out of range 0-9"}},
      {"images and labels disagree in count", "fashion_mnist", {}, fashion_with(kLabelsGz, test::idx_labels(30, 10)),
       {kImagesGz, "has 40 images", "has 30 labels"}},
      {"images of the wrong size", "fashion_mnist", {}, fashion_with(kImagesGz, test::idx_images(40, 32, 32)),
       {kImagesGz, "images are 32x32, expected 28x28"}},
      {"implausible image size", "fashion_mnist", {}, fashion_with(kImagesGz, test::idx_images(0, 0, 28)),
       {kImagesGz, "implausible image size 0x28"}},
      {"corrupt gzip data", "fashion_mnist", {},
       fashion_with(kLabelsGz, with_byte(test::gzip(test::idx_labels(40, 10)), 12, '\xff'), false),
       {kLabelsGz, "gzip"}},
      {"truncated gzip stream", "fashion_mnist", {},
       fashion_with(kLabelsGz, truncated(test::gzip(test::idx_labels(40, 10)), 10), false),
       {kLabelsGz, "truncated gzip stream"}},
      {"empty label file", "fashion_mnist", {}, fashion_with(kLabelsGz, "", false),
       {kLabelsGz, "is empty (0 bytes)", "expected 29515 bytes"}},
      {"missing test labels", "fashion_mnist", {},
       [](const fs::path& root) {
         test::write_fashion_fixture(root, 40, 20);
         fs::remove(root / "fashion_mnist/t10k-labels-idx1-ubyte.gz");
       },
       {"missing file t10k-labels-idx1-ubyte.gz", "looked in", "Get it from"}},
      {"wrong checksum (data.verify=strict)", "fashion_mnist", {{"data.verify", "strict"}},
       [](const fs::path& root) { test::write_fashion_fixture(root, 40, 20); },
       {"train-images-idx3-ubyte.gz", "bytes with sha256", "expected 26,421,880 bytes with sha256 3aede38d",
        "data.verify=warn"}},
      {"a class absent from the test split", "fashion_mnist", {},
       fashion_with("t10k-labels-idx1-ubyte.gz", test::idx_labels(20, 9)),
       {"t10k-labels-idx1-ubyte.gz", "test split", "no example of class 9 (Ankle boot)"}},
      {"a limit that empties a class", "fashion_mnist", {{"data.test_limit", "5"}},
       [](const fs::path& root) { test::write_fashion_fixture(root, 40, 20); },
       {"the test split (5 examples) has no example of class", "data.test_limit=5"}},
      // CIFAR
      {"short CIFAR record", "cifar10", {}, cifar_with("data_batch_2.bin", truncated(test::cifar_records(20, 1, 10), 7)),
       {"data_batch_2.bin", "not a whole number of 3073-byte CIFAR records"}},
      {"CIFAR label beyond the classes", "cifar10", {}, cifar_with("data_batch_1.bin", test::cifar_records(20, 1, 11)),
       {"data_batch_1.bin", "label 10 of record 10", "out of range 0-9"}},
      {"empty CIFAR batch", "cifar10", {}, cifar_with("data_batch_3.bin", ""),
       {"data_batch_3.bin", "is empty (0 bytes)", "expected 30730000 bytes"}},
      {"CIFAR test split missing a class", "cifar10", {}, cifar_with("test_batch.bin", test::cifar_records(10, 1, 9)),
       {"test_batch.bin", "no example of class 9 (truck)"}},
      {"corrupt tar archive", "cifar10", {},
       [](const fs::path& root) { test::write_bytes(root / "cifar10/cifar-10-binary.tar.gz", "not a tar at all", false); },
       {"cifar-10-binary.tar.gz", "archive"}},
      {"truncated tar.xz archive", "cifar10", {},
       [](const fs::path& root) {
         test::write_tar(root / "cifar10/all.tar.xz", {{"cifar-10-batches-bin/data_batch_1.bin", test::cifar_records(50, 1, 10)}});
         const std::string bytes = read_file(root / "cifar10/all.tar.xz");
         test::write_bytes(root / "cifar10/all.tar.xz", bytes.substr(0, bytes.size() / 2), false);
       },
       {"all.tar.xz", "archive"}},
      {"data.files names a file that is not there", "cifar10", {{"data.files", "test=nothere.bin"}},
       [](const fs::path& root) { test::write_cifar10_fixture(root, 20, 10); },
       {"missing file nothere.bin", "looked in"}},
      {"data.files with an unknown role", "cifar10", {{"data.files", "tset=x.bin"}},
       [](const fs::path& root) { test::write_cifar10_fixture(root, 20, 10); },
       {"data.files", "'tset=x.bin' is not ROLE=FILE", "train_1"}},
      {"CIFAR-100 record without its fine label", "cifar100", {},
       [](const fs::path& root) {
         test::write_bytes(root / "cifar100/cifar-100-binary/train.bin", test::cifar_records(20, 1, 100), false);
         test::write_bytes(root / "cifar100/cifar-100-binary/test.bin", test::cifar_records(100, 2, 100), false);
       },
       {"train.bin", "not a whole number of 3074-byte CIFAR records"}},
      {"CIFAR-100 fine label 100", "cifar100", {},
       [](const fs::path& root) {
         test::write_bytes(root / "cifar100/cifar-100-binary/train.bin", test::cifar_records(101, 2, 101), false);
         test::write_bytes(root / "cifar100/cifar-100-binary/test.bin", test::cifar_records(100, 2, 100), false);
       },
       {"train.bin", "label 100 of record 100", "out of range 0-99"}},
      // Rotten Tomatoes
      {"empty rt-polarity.neg (strict)", "rotten_tomatoes", {{"data.verify", "strict"}}, rt_files(lines("good", 20), ""),
       {"rt-polarity.neg", "is empty (0 bytes)", "expected 612290 bytes"}},
      {"rt-polarity.neg of blank lines", "rotten_tomatoes", {}, rt_files(lines("good", 20), "\n \n"),
       {"rt-polarity.neg", "no example of class 0 (negative)"}},
      {"missing rt-polarity.pos", "rotten_tomatoes", {},
       [](const fs::path& root) { test::write_text(root / "rotten_tomatoes/rt-polarity.neg", lines("bad", 20)); },
       {"missing file rt-polarity.pos", "looked in"}},
      {"wrong rt-polarity.pos checksum (strict)", "rotten_tomatoes", {{"data.verify", "strict"}},
       rt_files(lines("good", 20), lines("bad", 20)),
       {"rt-polarity.pos", "expected 626,168 bytes with sha256 d79ef140"}},
      // AG News
      {"AG News class 5", "ag_news", {{"data.missing_train", "split_test"}}, ag_test(test::ag_news_csv(8) + "\"5\",\"a\",\"b\"\n"),
       {"test.csv:9", "class '5' is not 1-4"}},
      {"AG News unquoted row", "ag_news", {{"data.missing_train", "split_test"}}, ag_test("1,a,b\n"),
       {"test.csv:1", "expected a quoted field"}},
      {"AG News unterminated quote", "ag_news", {{"data.missing_train", "split_test"}}, ag_test("\"1\",\"a\n"),
       {"test.csv:1", "unterminated quoted field"}},
      {"AG News row of four fields", "ag_news", {{"data.missing_train", "split_test"}},
       ag_test("\"1\",\"a\",\"b\",\"c\"\n"), {"test.csv:1", "expected 3 quoted fields"}},
      {"AG News without test.csv", "ag_news", {{"data.missing_train", "split_test"}},
       [](const fs::path& root) { test::write_text(root / "ag_news/readme.txt", "x"); },
       {"missing file test.csv", "looked in"}},
      {"AG News without train.csv", "ag_news", {}, ag_test(test::ag_news_csv(40)),
       {"training split is missing", "train.csv", "data.missing_train=split_test"}},
      {"AG News test split without Sci/Tech", "ag_news", {{"data.missing_train", "split_test"}},
       ag_test(test::ag_news_csv(40, 3)), {"test.csv", "no example of class 3 (Sci/Tech)"}},
      // IMDB and 20 Newsgroups
      {"empty IMDB class folder", "imdb", {}, imdb_folder("test/neg"), {"aclImdb/test/neg", "class folder is missing or empty"}},
      {"no IMDB files", "imdb", {}, [](const fs::path&) {}, {"no aclImdb/ files found", "aclImdb_v1.tar.gz"}},
      {"a known IMDB archive that does not match (strict)", "imdb", {{"data.verify", "strict"}},
       [](const fs::path& root) {
         test::write_tar(root / "imdb/aclImdb.tar.xz", {{"aclImdb/train/pos/0_9.txt", "good"},
                                                        {"aclImdb/train/neg/0_1.txt", "bad"},
                                                        {"aclImdb/test/pos/0_9.txt", "good"},
                                                        {"aclImdb/test/neg/0_1.txt", "bad"}});
       },
       {"aclImdb.tar.xz", "expected 19,050,956 bytes with sha256 e7d11023"}},
      {"a test newsgroup unknown to training", "newsgroups", {},
       newsgroups({"20news-bydate-train/sci.space/1", "20news-bydate-test/sci.space/2", "20news-bydate-test/misc.x/3"}),
       {"20news-bydate-test/misc.x/3", "newsgroup 'misc.x' is not among the training groups"}},
      {"a newsgroup absent from the test split", "newsgroups", {},
       newsgroups({"20news-bydate-train/sci.space/1", "20news-bydate-train/alt.atheism/2",
                   "20news-bydate-test/sci.space/3"}),
       {"20news-bydate-test/", "no example of class 0"}},
  };
  return table;
}

}  // namespace

TEST_CASE("bad data inputs fail with a repro::Error naming the file and what was expected", "[data]") {
  REQUIRE(data_bad_inputs().size() >= 30);
  test::TempDir scratch("bad-data");
  ::setenv("REPRO_CACHE", (scratch.path() / "cache").c_str(), 1);
  int index = 0;
  for (const auto& row : data_bad_inputs()) {
    const fs::path root = scratch.path() / std::to_string(index++);
    const std::string message = load_error(row, root);
    INFO("row: " << row.what << "\nmessage: " << message);
    CHECK_FALSE(message.empty());
    CHECK(message.rfind("not a repro::Error", 0) == std::string::npos);
    for (const auto& part : row.expected) CHECK_THAT(message, repro::test::Contains(part));
  }
  ::unsetenv("REPRO_CACHE");
}
