// repro data fetch (against a local HTTP server), verify and preview.
#include "catch.h"
#include <cstdio>
#include <nlohmann/json.hpp>

#include "data/fashion_mnist.h"
#include "data/fetch.h"
#include "data/inspect.h"
#include "data/verify.h"
#include "fixtures.h"
#include "http_server.h"
#include "run_repro.h"
#include "spec/presets.h"
#include "util/files.h"
#include "util/strings.h"

using namespace repro;
using repro::test::Contains;
using repro::test::Result;
using repro::test::run_repro;

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

TEST_CASE("repro data verify says how many checksums it computed and how many the cache gave", "[data]") {
  test::ScopedCache cache;
  test::TempDir root("verify-cached");
  test::write_fashion_fixture(root.path(), 10, 5);
  const std::string command = "data verify fashion_mnist --data-root " + root.path().string();
  const Result first = run_repro(command);
  INFO(first.output);
  CHECK(first.exit_code == 1);  // the fixture is not the official data
  CHECK_THAT(first.output, Contains("sha256: 4 computed, 0 from the checksum cache"));
  const Result second = run_repro(command);  // a new process: the cache file, not memory
  INFO(second.output);
  CHECK_THAT(second.output, Contains("sha256: 0 computed, 4 from the checksum cache"));
}

#if REPRO_HAS_OPENCV  // left out of minimal builds (scripts/build-cuda)
TEST_CASE("preview writes a PNG grid of clean and noisy images", "[data]") {
  test::TempDir root("preview");
  test::write_fashion_fixture(root.path(), 10, 10);
  Config config = Config::defaults();
  config.set("data.verify", "off", "t");  // fixtures are not the official files
  config.set("data.noise.kind", "salt_pepper", "t");
  config.set("data.noise.level", "0.2", "t");
  resolve_settings(config, fashion_mnist_info().traits());
  const auto png = root.path() / "grid.png";
  CHECK_THAT(preview_dataset("fashion_mnist", root.path(), test::input_options(config), png),
             Contains("row 2 salt_pepper"));
  const std::string bytes = read_file(png);
  CHECK(bytes.substr(1, 3) == "PNG");
  config.set("data.noise.kind", "token_drop", "t");
  CHECK_THROWS_WITH(preview_dataset("fashion_mnist", root.path(), test::input_options(config), png),
                    Contains("text noise"));
}

#endif
TEST_CASE("data info counts examples per class", "[data]") {
  test::ScopedCache cache;
  test::TempDir root("info");
  test::write_fashion_fixture(root.path(), 40, 20);
  Config config = Config::defaults();
  resolve_settings(config, fashion_mnist_info().traits());
  CHECK_THROWS_WITH(dataset_info("fashion_mnist", root.path(), test::input_options(config), false),
                    Contains("train-images-idx3-ubyte.gz") && Contains("sha256"));  // data.verify=strict
  config.set("data.verify", "off", "t");
  const std::string info = dataset_info("fashion_mnist", root.path(), test::input_options(config), true);
  CHECK_THAT(info, Contains("train: 40 examples; per class: 4 4 4 4 4 4 4 4 4 4"));
  CHECK_THAT(info, Contains("batching:"));
  CHECK_THAT(info, Contains("partial data"));
}

TEST_CASE("data.verify=warn trains on a mismatching file with a note and a dagger; strict refuses it", "[data]") {
  test::ScopedCache cache;
  test::TempDir dir("verify-run");
  test::write_fashion_fixture(dir.path() / "data", 200, 40);  // 150 train, 50 validation, 40 test: all distinct
  test::write_text(dir.path() / "spec.yaml",
                   "experiment: warned\ndatasets: [fashion_mnist]\nseeds: [0]\n"
                   "model: {dim: 16, depth: 1, heads: 2, patch: 7, ffn: {ratio: 2}}\n"
                   "data: {train_limit: 64, val_fraction: 0.25}\ntrain: {epochs: 1, batch_size: 32}\n");
  const std::string spec = (dir.path() / "spec.yaml").string();
  const std::string data = " --data-root " + (dir.path() / "data").string() + " --device cpu";
  const Result strict = run_repro("run " + spec + data + " --out " + (dir.path() / "strict").string());
  CHECK(strict.exit_code != 0);
  CHECK_THAT(strict.output, Contains("train-images-idx3-ubyte.gz") && Contains("bytes with sha256") &&
                                Contains("3aede38d61863908ad78613f6a32ed271626dd12800ba2636569512369268a84"));
  const Result warned =
      run_repro("run " + spec + " data.verify=warn" + data + " --out " + (dir.path() / "warn").string());
  INFO(warned.output);
  REQUIRE(warned.exit_code == 0);
  const auto summary =
      nlohmann::json::parse(read_file(dir.path() / "warn/warned/fashion_mnist/model/seed_0/summary.json"));
  CHECK(summary["data"]["train"] == 64);  // data.train_limit: the examples trained on
  CHECK(summary["data"]["val"] == 50);
  CHECK(summary["data"]["test"] == 40);
  CHECK(summary["data"]["partial"] == true);
  CHECK_THAT(join(summary["data"]["notes"].get<std::vector<std::string>>(), "\n"),
             Contains("unverified: ") && Contains("(data.verify=warn)"));
  CHECK_THAT(read_file(dir.path() / "warn/warned/table.md"), Contains(" †") && Contains("unverified: "));
  const Result off = run_repro("run " + spec + " data.verify=off" + data + " --out " + (dir.path() / "off").string());
  REQUIRE(off.exit_code == 0);
  const auto quiet =
      nlohmann::json::parse(read_file(dir.path() / "off/warned/fashion_mnist/model/seed_0/summary.json"));
  CHECK_THAT(join(quiet["data"]["notes"].get<std::vector<std::string>>(), "\n"), !Contains("unverified"));
}

TEST_CASE("data info on partial datasets describes what is there, names what is missing and exits 0", "[data]") {
  test::ScopedCache cache;
  test::TempDir dir("info-partial");
  const auto root = dir.path();
  // CIFAR-10 with only a renamed partial test file, as on this project's machines.
  test::write_cifar10_fixture(root, 20, 10, "test_batch.first1000.bin");
  const Result cifar = run_repro("data info cifar10 data.verify=off --data-root " + root.string());
  INFO(cifar.output);
  CHECK(cifar.exit_code == 0);
  CHECK_THAT(cifar.output, Contains("read train: 100 examples; per class: 10 10 10") &&
                               Contains("test_batch.bin: MISSING") &&
                               Contains("use data.files=test=test_batch.first1000.bin") &&
                               Contains("run splits: none with these settings"));
  const Result renamed = run_repro(
      "data info cifar10 data.verify=off data.files=test=test_batch.first1000.bin "
      "--data-root " +
      root.string());
  CHECK(renamed.exit_code == 0);
  CHECK_THAT(renamed.output, Contains("test: 10 examples") && Contains("10 of the official 10000"));
  // AG News without train.csv.
  test::write_tar(root / "ag_news/ag_news_csv-test-only.tar.xz", {{"ag_news_csv/test.csv", test::ag_news_csv(40)}});
  const Result ag = run_repro("data info ag_news data.verify=off --data-root " + root.string());
  INFO(ag.output);
  CHECK(ag.exit_code == 0);
  CHECK_THAT(ag.output, Contains("train.csv: MISSING") && Contains("read test: 40 examples; per class: 10 10 10 10") &&
                            Contains("data.missing_train=split_test"));
  const Result split =
      run_repro("data info ag_news data.verify=off data.missing_train=split_test --data-root " + root.string());
  CHECK(split.exit_code == 0);
  // 10 per class: 1 test, then val_fraction 0.2 of the other 9 (2) for validation, 7 trained on.
  CHECK_THAT(split.output,
             Contains("train: 28 examples") && Contains("val: 8 examples") && Contains("test: 4 examples"));
  // Nothing at all is still an error.
  const Result none = run_repro("data info imdb --data-root " + (root / "nothing").string());
  CHECK(none.exit_code == 2);
  CHECK_THAT(none.output, Contains("no aclImdb/ files"));
}
