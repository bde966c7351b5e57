// Opt-in checks on the real files: run when $REPRO_DATA is set.
#include "catch.h"
#include <cstdlib>

#include "data/fashion_mnist.h"
#include "data/idx.h"
#include "fixtures.h"
#include "util/files.h"
#include "util/sha256.h"

using namespace repro;
using repro::test::Contains;

TEST_CASE("real Fashion-MNIST has the official counts", "[real]") {
  const char* root = std::getenv("REPRO_DATA");
  if (!root || !*root) {
    WARN("skipped: set REPRO_DATA to the datasets folder to check the real Fashion-MNIST");
    return;
  }
  const RawData raw = load_fashion_mnist(root);  // data.verify=strict: sizes and sha256 checked
  CHECK(raw.train.size() == 60000);
  CHECK(raw.test.size() == 10000);
  CHECK(raw.notes.empty());
  CHECK_FALSE(raw.partial());
  CHECK(torch::bincount(raw.train.labels).eq(6000).all().item<bool>());
  CHECK(torch::bincount(raw.test.labels).eq(1000).all().item<bool>());
}

TEST_CASE("a real file with one altered byte (still valid gzip) is refused, naming both hashes", "[real]") {
  const char* root = std::getenv("REPRO_DATA");
  if (!root || !*root) {
    WARN("skipped: set REPRO_DATA to the datasets folder");
    return;
  }
  namespace fs = std::filesystem;
  const fs::path real = fs::path(root) / "fashion_mnist";
  test::TempDir dir("real-altered");
  fs::create_directories(dir.path() / "fashion_mnist");
  for (const char* name : {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz"})
    fs::create_symlink(fs::absolute(real / name), dir.path() / "fashion_mnist" / name);
  const std::string original = read_file(real / "t10k-labels-idx1-ubyte.gz");
  std::string altered = original;
  altered[5] ^= 0x10;  // the gzip header's mtime: the labels are the same, the file is not
  REQUIRE(gunzip(altered, "x") == gunzip(original, "x"));
  test::write_bytes(dir.path() / "fashion_mnist/t10k-labels-idx1-ubyte.gz", altered, false);
  CHECK_THROWS_WITH(load_fashion_mnist(dir.path()),
                    Contains("t10k-labels-idx1-ubyte.gz") && Contains(sha256_hex(altered)) &&
                        Contains("67da17c76eaffca5446c3361aaab5c3cd6d1c2608764d35dfb1850b086bf8dd5"));
  const RawData warned = load_fashion_mnist(dir.path(), FileOptions("", VerifyMode::Warn));
  CHECK(warned.unverified);
  CHECK(warned.test.size() == 10000);
}
