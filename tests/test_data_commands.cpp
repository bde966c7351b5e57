// repro data fetch (against a local HTTP server), verify and preview.
#include <catch2/catch.hpp>

#include "data/fashion_mnist.h"
#include "data/fetch.h"
#include "data/inspect.h"
#include "data/verify.h"
#include "fixtures.h"
#include "http_server.h"
#include "models/presets.h"
#include "util/files.h"

using namespace repro;
using Catch::Matchers::Contains;

namespace {

std::map<std::string, std::string> fashion_files() {
  test::TempDir dir("fashion-src");
  test::write_fashion_fixture(dir.path(), 30, 10);
  std::map<std::string, std::string> files;
  for (const char* name : {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz",
                           "t10k-labels-idx1-ubyte.gz"})
    files["/" + std::string(name)] = read_file(dir.path() / "fashion_mnist" / name);
  return files;
}

}  // namespace

#if REPRO_HAS_CURL  // left out of minimal builds (scripts/build-cuda)
TEST_CASE("fetch downloads from a mirror, refuses a wrong checksum and resumes a cut download", "[data]") {
  test::HttpServer server(fashion_files());
  test::TempDir root("fetch");
  // The fixture files differ from the official ones: the manifest's size check rejects them.
  CHECK_THROWS_WITH(fetch_dataset("fashion_mnist", root.path(), server.url(), false),
                    Contains("train-images-idx3-ubyte.gz.part") && Contains("expected 26421880"));
  CHECK_FALSE(std::filesystem::exists(root.path() / "fashion_mnist/train-images-idx3-ubyte.gz"));
  CHECK_THROWS_WITH(fetch_dataset("fashion_mnist", root.path(), server.url() + "/missing", false),
                    Contains("download failed"));
}

#endif
#if REPRO_HAS_CURL  // left out of minimal builds (scripts/build-cuda)
TEST_CASE("a cut download keeps its part file and the next fetch resumes it", "[data]") {
  const std::string payload(300000, 'x');
  test::HttpServer server({{"/rt-polaritydata.tar.gz", payload}});
  test::TempDir root("resume");
  server.cut_after(100000);
  // rotten_tomatoes' official address is an archive holding its files: fetch takes the archive.
  CHECK_THROWS(fetch_dataset("rotten_tomatoes", root.path(), server.url(), false));
  const auto part = root.path() / "rotten_tomatoes/rt-polaritydata.tar.gz.part";
  REQUIRE(std::filesystem::exists(part));
  CHECK(std::filesystem::file_size(part) == 100000);
  server.cut_after(0);
  fetch_dataset("rotten_tomatoes", root.path(), server.url(), false);
  CHECK(read_file(root.path() / "rotten_tomatoes/rt-polaritydata.tar.gz") == payload);
  CHECK(server.requests() == 2);
}

#endif
TEST_CASE("verify reports missing files and wrong sizes", "[data]") {
  test::TempDir root("verify");
  test::write_fashion_fixture(root.path(), 10, 5);
  const auto checks = verify_dataset("fashion_mnist", root.path());
  REQUIRE(checks.size() == 4);
  CHECK(checks[0].status == "wrong size");
  CHECK_THAT(checks[0].detail, Contains("expected 26421880"));
  const auto cifar = verify_dataset("cifar10", root.path());
  CHECK(cifar[0].status == "missing");
  CHECK_THAT(cifar[0].detail, Contains("cifar-10-binary.tar.gz"));
}

#if REPRO_HAS_OPENCV  // left out of minimal builds (scripts/build-cuda)
TEST_CASE("preview writes a PNG grid of clean and noisy images", "[data]") {
  test::TempDir root("preview");
  test::write_fashion_fixture(root.path(), 10, 10);
  Config config = Config::defaults();
  config.set("data.noise.kind", "salt_pepper", "t");
  config.set("data.noise.level", "0.2", "t");
  resolve_settings(config, fashion_mnist_info());
  const auto png = root.path() / "grid.png";
  CHECK_THAT(preview_dataset("fashion_mnist", root.path(), config, png), Contains("row 2 salt_pepper"));
  const std::string bytes = read_file(png);
  CHECK(bytes.substr(1, 3) == "PNG");
  config.set("data.noise.kind", "token_drop", "t");
  CHECK_THROWS_WITH(preview_dataset("fashion_mnist", root.path(), config, png), Contains("text noise"));
}

#endif
TEST_CASE("data info counts examples per class", "[data]") {
  test::TempDir root("info");
  test::write_fashion_fixture(root.path(), 40, 20);
  Config config = Config::defaults();
  resolve_settings(config, fashion_mnist_info());
  const std::string info = dataset_info("fashion_mnist", root.path(), config, true);
  CHECK_THAT(info, Contains("train: 40 examples; per class: 4 4 4 4 4 4 4 4 4 4"));
  CHECK_THAT(info, Contains("batching:"));
  CHECK_THAT(info, Contains("partial data"));
}
