// CIFAR-10/100 (plain files and archives) and SVHN (MATLAB) on generated fixtures.
#include "catch.h"
#include <cstdlib>

#include "data/cifar.h"
#include "data/integrity.h"
#include "data/svhn.h"
#include "fixtures.h"
#include "util/strings.h"

using namespace repro;
using repro::test::Contains;

namespace {

void write_cifar10_folder(const std::filesystem::path& dir, int64_t per_batch) {
  for (int i = 1; i <= 5; ++i)
    test::write_bytes(dir / ("data_batch_" + std::to_string(i) + ".bin"), test::cifar_records(per_batch, 1, 10), false);
  test::write_bytes(dir / "test_batch.bin", test::cifar_records(per_batch, 1, 10), false);
}

}  // namespace

TEST_CASE("CIFAR-10 from the unpacked folder", "[data]") {
  test::ScopedCache cache;
  test::TempDir dir("cifar10");
  write_cifar10_folder(dir.path() / "cifar10/cifar-10-batches-bin", 20);
  CHECK_THROWS_WITH(load_cifar10(dir.path(), ""),
                    Contains("data_batch_1.bin") && Contains("bytes with sha256") &&
                        Contains("cee916563c9f80d84e3cc88e17fdc0941787f1244f00a67874d45b261883ada5"));
  const RawData raw = load_cifar10(dir.path(), test::unchecked());
  CHECK(raw.train.inputs.sizes() == torch::IntArrayRef({100, 3, 32, 32}));
  CHECK(raw.test.size() == 20);
  CHECK(raw.train.labels[23].item<int64_t>() == 3);                   // record 3 of data_batch_2
  CHECK(raw.train.inputs[0][1][0][0].item<uint8_t>() == 1024 % 251);  // green plane starts at byte 1024
  CHECK(raw.notes.size() == 2);
}

TEST_CASE("CIFAR-10 from tar archives, with a renamed test file", "[data]") {
  test::TempDir dir("cifar10-tar");
  std::vector<std::pair<std::string, std::string>> train;
  for (int i = 1; i <= 5; ++i)
    train.push_back({"cifar-10-batches-bin/data_batch_" + std::to_string(i) + ".bin", test::cifar_records(10, 1, 10)});
  test::write_tar(dir.path() / "cifar10/train-only.tar.xz", train);
  test::write_tar(dir.path() / "cifar10/test-first.tar.gz",
                  {{"cifar-10-batches-bin/test_batch.first1000.bin", test::cifar_records(10, 1, 10)}});
  CHECK_THROWS_WITH(load_cifar10(dir.path(), ""),
                    Contains("missing file test_batch.bin") && Contains("train-only.tar.xz") && Contains("data.files"));
  // test_batch.first1000.bin is a known copy: its size and sha256 are checked.
  const std::string copy = test::cifar_records(10, 1, 10);
  test::write_bytes(dir.path() / "copy/test_batch.first1000.bin", copy, false);
  DataNotes notes;
  CHECK_THROWS_WITH(
      check_file(manifest("cifar10"),
                 {"test", "test_batch.first1000.bin", dir.path() / "copy/test_batch.first1000.bin", "", copy.size()},
                 &copy, VerifyMode::Strict, notes),
      Contains("test_batch.first1000.bin") &&
          Contains("expected 3,073,000 bytes with sha256 "
                   "8314c96d7cd65618193bab23acdd5d4c4af15bf6dd00a1781d55beedf3be1ef5"));
  const RawData raw = load_cifar10(dir.path(), test::unchecked("test=test_batch.first1000.bin"));
  CHECK(raw.train.size() == 50);
  CHECK(raw.test.size() == 10);
  CHECK_THROWS_WITH(load_cifar10(dir.path(), "tset=x.bin"), Contains("data.files") && Contains("train_1"));
}

TEST_CASE("corrupt CIFAR files fail naming the file", "[data]") {
  auto records = test::cifar_records(3, 1, 10);
  records.resize(records.size() - 5);
  CHECK_THROWS_WITH(parse_cifar_records(records, 1, 10, "data_batch_1.bin"),
                    Contains("data_batch_1.bin") && Contains("not a whole number of 3073-byte CIFAR records"));
  CHECK_THROWS_WITH(parse_cifar_records(test::cifar_records(20, 1, 12), 1, 10, "b.bin"),
                    Contains("b.bin: label 10 of record 10"));
  test::TempDir dir("cifar-bad-tar");
  test::write_bytes(dir.path() / "cifar100/cifar-100-binary.tar.gz", "this is not an archive", false);
  CHECK_THROWS_WITH(load_cifar100(dir.path(), test::unchecked()), Contains("cifar-100-binary.tar.gz"));
}

TEST_CASE("CIFAR-100 reads the fine label", "[data]") {
  test::TempDir dir("cifar100");
  test::write_tar(dir.path() / "cifar100/cifar-100-binary.tar.gz",
                  {{"cifar-100-binary/train.bin", test::cifar_records(150, 2, 100)},
                   {"cifar-100-binary/test.bin", test::cifar_records(100, 2, 100)}});
  const RawData raw = load_cifar100(dir.path(), test::unchecked());
  CHECK(raw.train.size() == 150);
  CHECK(raw.train.labels[120].item<int64_t>() == 20);
  CHECK(raw.test.size() == 100);
}

#if REPRO_HAS_MATIO  // left out of minimal builds (scripts/build-cuda)
TEST_CASE("SVHN from MATLAB files: layout and label 10 = digit 0", "[data]") {
  test::TempDir dir("svhn");
  test::write_svhn_mat(dir.path() / "svhn/train_32x32.mat", 12);
  test::write_svhn_mat(dir.path() / "svhn/test_32x32.mat", 10);
  const RawData raw = load_svhn(dir.path(), test::unchecked());
  CHECK(raw.train.inputs.sizes() == torch::IntArrayRef({12, 3, 32, 32}));
  CHECK(raw.train.labels[9].item<int64_t>() == 0);  // y = 10
  CHECK(raw.train.labels[0].item<int64_t>() == 1);
  // MATLAB is column-major: X(row 0, col 1, channel 0, n 0) is byte 32.
  CHECK(raw.train.inputs[0][0][0][1].item<uint8_t>() == 32);
  CHECK(raw.train.inputs[0][0][1][0].item<uint8_t>() == 1);
  test::write_bytes(dir.path() / "svhn/test_32x32.mat", "MATLAB? no", false);
  CHECK_THROWS_WITH(load_svhn(dir.path(), test::unchecked()), Contains("test_32x32.mat: not a MATLAB file"));
}

#endif
TEST_CASE("real CIFAR-10 has 50,000 training images and the partial test split is labelled", "[real]") {
  const char* root = std::getenv("REPRO_DATA");
  if (!root || !*root || !std::filesystem::exists(std::filesystem::path(root) / "cifar10")) {
    WARN("skipped: no cifar10 under REPRO_DATA");
    return;
  }
  const RawData raw = load_cifar10(root, "test=test_batch.first1000.bin");  // strict: every sha256 checked
  CHECK(raw.train.size() == 50000);
  CHECK(torch::bincount(raw.train.labels).eq(5000).all().item<bool>());
  CHECK(raw.test.size() == 1000);
  CHECK(raw.incomplete);
  CHECK_FALSE(raw.unverified);
  CHECK_THAT(join(raw.notes, "\n"), Contains("1000 of the official 10000") && Contains("is a known copy"));
}

TEST_CASE("real CIFAR-100 and SVHN, when present, have the official counts", "[real]") {
  const char* root = std::getenv("REPRO_DATA");
  for (const std::string name : {"cifar100", "svhn"}) {
    if (!root || !*root || !std::filesystem::exists(std::filesystem::path(root) / name)) {
      WARN("skipped: no " << name << " under REPRO_DATA");
      continue;
    }
    const RawData raw = name == "svhn" ? load_svhn(root, "") : load_cifar100(root, "");
    CHECK(raw.train.size() == (name == "svhn" ? 73257 : 50000));
    CHECK(raw.test.size() == (name == "svhn" ? 26032 : 10000));
  }
}
