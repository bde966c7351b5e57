// The step's two ways (train/step.h) on the CPU: the length buckets of CUDA graphs and their fixed-shape
// evaluation batches, and, on a LibTorch >= 2.4 (Debian 13's lane), the fused update against the eager one.
// The same comparisons run on a GPU in tests/test_cuda.cpp, with the CUDA graphs.
#include <set>

#include "catch.h"
#include "data/batcher.h"
#include "fixtures.h"
#include "step_compare.h"
#include "train/split_metrics.h"
#include "train/step.h"

using namespace repro;

TEST_CASE("length buckets: quarters of the length, rounded up to 8, ascending, ending at the length", "[train]") {
  CHECK(length_buckets_for(256) == std::vector<int64_t>{64, 128, 192, 256});
  CHECK(length_buckets_for(30) == std::vector<int64_t>{8, 16, 24, 30});
  CHECK(length_buckets_for(12) == std::vector<int64_t>{8, 12});
  CHECK(length_buckets_for(3) == std::vector<int64_t>{3});
  CHECK(length_buckets_for(0).empty());
  // Graphs are off on the CPU: a step pads nothing (batches trimmed to their longest text, as ever).
  auto model = test::step_model("vanilla", torch::kCPU);
  TrainStep step(*model, test::step_options(CudaGraphsChoice::Auto), torch::kCPU, Schedule::constant(1e-3));
  CHECK(step.length_buckets(256).empty());
  CHECK_FALSE(step.graphs_enabled());
  CHECK(step.update_kind() == UpdateKind::Eager);
}

TEST_CASE("a text batch with length buckets is padded to its longest text's bucket, masked", "[train]") {
  Split split{torch::zeros({3, 24}, torch::kInt64), torch::zeros({3}, torch::kInt64)};
  split.inputs[0].slice(0, 0, 5).fill_(7);
  split.inputs[1].slice(0, 0, 9).fill_(8);
  split.inputs[2].slice(0, 0, 24).fill_(9);
  split.lengths = torch::tensor({5, 9, 24}, torch::kInt64);
  const TextBatcher trimmed(torch::kCPU), bucketed(torch::kCPU, length_buckets_for(24));
  CHECK(trimmed.inputs(split, torch::tensor({0}, torch::kInt64), false).inputs.size(1) == 5);
  const Batch short_batch = bucketed.inputs(split, torch::tensor({0}, torch::kInt64), false);
  CHECK(short_batch.inputs.size(1) == 8);
  CHECK(short_batch.padding_mask.slice(1, 5).all().item<bool>());  // the padding is masked
  CHECK(bucketed.inputs(split, torch::tensor({0, 1}, torch::kInt64), false).inputs.size(1) == 16);
  CHECK(bucketed.inputs(split, torch::tensor({2}, torch::kInt64), false).inputs.size(1) == 24);
}

TEST_CASE("padded evaluation batches: each example counted once, a fixed size per bucket", "[train]") {
  torch::manual_seed(2);
  const int64_t n = 53, width = 24;
  Split split{torch::zeros({n, width}, torch::kInt64), torch::zeros({n}, torch::kInt64)};
  const auto lengths = torch::randint(1, width + 1, {n}, torch::kInt64);
  for (int64_t i = 0; i < n; ++i) split.inputs[i].slice(0, 0, lengths[i].item<int64_t>()).fill_(3);
  const auto buckets = length_buckets_for(width);  // 8, 16, 24
  const auto batches = padded_eval_batches(split, {5, 64}, buckets);
  std::set<int64_t> counted;
  for (const auto& batch : batches) {
    REQUIRE(batch.count >= 1);
    REQUIRE(batch.count <= batch.indices.size(0));
    const auto batch_lengths = lengths.index_select(0, batch.indices);
    const int64_t longest = batch_lengths.max().item<int64_t>();
    const int64_t bucket = *std::lower_bound(buckets.begin(), buckets.end(), longest);
    CHECK(batch.indices.size(0) == std::min<int64_t>(5, 64 / bucket));  // the bucket's one size
    for (int64_t row = 0; row < batch.indices.size(0); ++row) {
      const int64_t index = batch.indices[row].item<int64_t>();
      if (row < batch.count)
        CHECK(counted.insert(index).second);
      else
        CHECK(index == batch.indices[0].item<int64_t>());  // padding rows repeat the first example
    }
  }
  CHECK(static_cast<int64_t>(counted.size()) == n);
  // Images (or no buckets): in order, all batches of one size, the last padded.
  const auto plain = padded_eval_batches(split, {16, 0}, {});
  REQUIRE(plain.size() == 4);
  CHECK(plain[3].count == 5);
  CHECK(plain[3].indices.size(0) == 16);
}

TEST_CASE("the fused AdamW update equals the eager one, and their checkpoints cross (LibTorch >= 2.4)", "[train]") {
  if (!fused_update_built()) {
    WARN("SKIPPED: LibTorch " TORCH_VERSION " has no fused AdamW with a tensor learning rate (2.4+)");
    return;
  }
  test::TempDir dir("fused-step");
  test::check_fused_against_eager(torch::kCPU, dir.path());
}
