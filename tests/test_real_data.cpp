// Opt-in checks on the real files: run when $REPRO_DATA is set.
#include <catch2/catch.hpp>
#include <cstdlib>

#include "data/fashion_mnist.h"

using namespace repro;

TEST_CASE("real Fashion-MNIST has the official counts", "[real]") {
  const char* root = std::getenv("REPRO_DATA");
  if (!root || !*root) {
    WARN("skipped: set REPRO_DATA to the datasets folder to check the real Fashion-MNIST");
    return;
  }
  const RawData raw = load_fashion_mnist(root);
  CHECK(raw.train.size() == 60000);
  CHECK(raw.test.size() == 10000);
  CHECK(raw.notes.empty());
  CHECK(torch::bincount(raw.train.labels).eq(6000).all().item<bool>());
  CHECK(torch::bincount(raw.test.labels).eq(1000).all().item<bool>());
}
