// IDX reading on generated fixtures (valid, truncated, bad magic), Fashion-MNIST
// loading, missing-file messages, limits and the stratified validation split.
#include <catch2/catch.hpp>

#include "data/fashion_mnist.h"
#include "data/idx.h"
#include "data/prepare.h"
#include "data/vision_batches.h"
#include "fixtures.h"
#include "spec/config.h"

using namespace repro;
using Catch::Matchers::Contains;

TEST_CASE("IDX images and labels round-trip from gzip fixtures", "[data]") {
  test::TempDir dir("idx");
  test::write_bytes(dir.path() / "img.gz", test::idx_images(20, 28, 28), true);
  test::write_bytes(dir.path() / "lab.gz", test::idx_labels(20, 10), true);
  const auto images = read_idx_images(dir.path() / "img.gz");
  CHECK(images.sizes() == torch::IntArrayRef({20, 1, 28, 28}));
  CHECK(images.scalar_type() == torch::kUInt8);
  const auto labels = read_idx_labels(dir.path() / "lab.gz", 10);
  CHECK(labels[13].item<int64_t>() == 3);
  // Uncompressed files are read as well.
  test::write_bytes(dir.path() / "plain", test::idx_labels(5, 10), false);
  CHECK(read_idx_labels(dir.path() / "plain", 10).size(0) == 5);
}

TEST_CASE("corrupt IDX files fail with the file and the problem", "[data]") {
  test::TempDir dir("idx-bad");
  auto truncated = test::idx_images(20, 28, 28);
  truncated.resize(truncated.size() - 100);
  test::write_bytes(dir.path() / "trunc.gz", truncated, true);
  CHECK_THROWS_WITH(read_idx_images(dir.path() / "trunc.gz"), Contains("trunc.gz") && Contains("truncated IDX"));
  test::write_bytes(dir.path() / "magic.gz", test::idx_images(2, 28, 28, 2049), true);
  CHECK_THROWS_WITH(read_idx_images(dir.path() / "magic.gz"),
                    Contains("magic.gz") && Contains("bad IDX magic number 2049"));
  test::write_bytes(dir.path() / "short.gz", "abc", true);
  CHECK_THROWS_WITH(read_idx_labels(dir.path() / "short.gz", 10), Contains("shorter than its 8-byte header"));
  test::write_bytes(dir.path() / "labels.gz", test::idx_labels(20, 12), true);
  CHECK_THROWS_WITH(read_idx_labels(dir.path() / "labels.gz", 10), Contains("label 10 at record 10"));
  test::write_bytes(dir.path() / "notgz.gz", std::string("\x1f\x8b\x08\x00garbage", 12), false);
  CHECK_THROWS_WITH(read_idx_labels(dir.path() / "notgz.gz", 10), Contains("notgz.gz"));
  CHECK_THROWS_WITH(read_idx_labels(dir.path() / "absent.gz", 10), Contains("absent.gz: file not found"));
}

TEST_CASE("Fashion-MNIST loads from the data root and names missing files", "[data]") {
  test::TempDir dir("fashion");
  CHECK_THROWS_WITH(load_fashion_mnist(dir.path()), Contains("missing file train-images-idx3-ubyte.gz") &&
                                                        Contains(dir.path().string()) && Contains("Get it from http"));
  test::write_fashion_fixture(dir.path(), 40, 20);
  const RawData raw = load_fashion_mnist(dir.path());
  CHECK(raw.train.size() == 40);
  CHECK(raw.test.size() == 20);
  REQUIRE(raw.notes.size() == 2);  // both splits differ from the official counts
  CHECK_THAT(raw.notes[0], Contains("40 of the official 60000"));
}

TEST_CASE("limits and the stratified validation split are seeded and disjoint", "[data]") {
  test::TempDir dir("prepare");
  test::write_fashion_fixture(dir.path(), 200, 50);
  const RawData raw = load_fashion_mnist(dir.path());
  Config config = Config::defaults();
  config.set("data.val_fraction", "0.2", "test");
  config.set("data.test_limit", "30", "test");
  const RunData a = prepare_run_data(fashion_mnist_info(), raw, config);
  CHECK(a.val.size() == 40);
  CHECK(a.train.size() == 160);
  CHECK(a.test.size() == 30);
  // 20% of each class's 20 examples.
  CHECK(torch::bincount(a.val.labels).eq(4).all().item<bool>());
  const RunData b = prepare_run_data(fashion_mnist_info(), raw, config);
  CHECK(torch::equal(a.val.inputs, b.val.inputs));
  config.set("data.split_seed", "1", "test");
  const RunData c = prepare_run_data(fashion_mnist_info(), raw, config);
  CHECK_FALSE(torch::equal(a.val.inputs, c.val.inputs));
  config.set("data.val_limit", "10", "test");
  const RunData d = prepare_run_data(fashion_mnist_info(), raw, config);
  CHECK(d.val.size() == 10);
  CHECK(d.train.size() == 160);  // the limit thins validation only
  CHECK_THAT(d.notes.back(), Contains("10 validation examples (data.val_limit)"));
}

TEST_CASE("vision batches: normalization and shape-preserving augmentation", "[data]") {
  Split split{torch::full({4, 1, 28, 28}, 255, torch::kUInt8), torch::zeros({4}, torch::kInt64)};
  Config config = Config::defaults();
  config.set("data.augment", "crop_flip", "test");
  const VisionBatcher batcher(fashion_mnist_info(), config, torch::kCPU);
  const auto eval = batcher.images(split, torch::arange(4), false);
  CHECK(eval.sizes() == torch::IntArrayRef({4, 1, 28, 28}));
  CHECK(eval[0][0][0][0].item<float>() == Approx((1.0 - 0.2860) / 0.3530));
  torch::manual_seed(3);
  const auto train = batcher.images(split, torch::arange(4), true);
  CHECK(train.sizes() == eval.sizes());
  // Random crops with zero padding bring in background pixels somewhere.
  CHECK(train.lt(eval.max()).any().item<bool>());
}
