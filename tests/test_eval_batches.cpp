// Evaluation batches (train/split_metrics.h): text in order of length within a token budget, every example
// once; the metrics equal those of one unbudgeted pass but for float rounding.
#include <set>

#include "catch.h"
#include "data/batcher.h"
#include "fixtures.h"
#include "models/attention/registry.h"
#include "models/model.h"
#include "train/split_metrics.h"

using namespace repro;

namespace {

// 40 texts of lengths 1..24 (ids 1..49, then padding 0) in a scrambled order, up to 24 tokens; 3 classes.
Split text_split() {
  torch::manual_seed(4);
  const int64_t n = 40, width = 24;
  auto ids = torch::zeros({n, width}, torch::kInt64);
  const auto lengths = torch::randint(1, width + 1, {n}, torch::kInt64);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t length = lengths[i].item<int64_t>();
    ids[i].slice(0, 0, length).copy_(torch::randint(1, 50, {length}, torch::kInt64));
  }
  return {ids, torch::randint(0, 3, {n}, torch::kInt64), {}};
}

}  // namespace

TEST_CASE("text evaluation batches: every example once, by length, within the token and example limits", "[train]") {
  const Split split = text_split();
  const auto lengths = split.inputs.ne(0).sum(1);
  const EvalBatching batching{7, 64};
  const auto batches = eval_batches(split, batching);
  std::set<int64_t> seen;
  int64_t previous_longest = 0;
  for (const auto& batch : batches) {
    REQUIRE(batch.dim() == 1);
    CHECK(batch.size(0) >= 1);
    CHECK(batch.size(0) <= 7);
    const auto batch_lengths = lengths.index_select(0, batch);
    const int64_t longest = batch_lengths.max().item<int64_t>(), shortest = batch_lengths.min().item<int64_t>();
    CHECK(shortest >= previous_longest);  // ascending lengths across batches
    if (batch.size(0) > 1) CHECK(batch.size(0) * longest <= 64);
    previous_longest = longest;
    for (int64_t i = 0; i < batch.size(0); ++i) CHECK(seen.insert(batch[i].item<int64_t>()).second);
  }
  CHECK(static_cast<int64_t>(seen.size()) == split.size());
  // No token budget: the split in order, max_examples at a time (as images always are).
  const auto plain = eval_batches(split, {16, 0});
  REQUIRE(plain.size() == 3);
  CHECK(plain[0].equal(torch::arange(0, 16, torch::kInt64)));
  CHECK(plain[2].equal(torch::arange(32, 40, torch::kInt64)));
  // A text longer than the budget gets a batch of its own.
  const auto tight = eval_batches(split, {40, 1});
  CHECK(static_cast<int64_t>(tight.size()) == split.size());
}

TEST_CASE("budgeted evaluation gives the metrics of one unbudgeted pass", "[train]") {
  ModelOptions o;
  o.kind = ModelKind::Text;
  o.pool = Pool::Mean;
  o.attention = attention_defaults("dgsa");
  o.dim = 16;
  o.heads = 2;
  o.depth = 2;
  o.ffn.ratio = 2;
  torch::manual_seed(1);
  auto model = build_model(o, test::tiny_text_info());
  const Split split = text_split();
  const TextBatcher batcher(torch::kCPU);
  const auto whole = split_metrics(*model, split, batcher, torch::kCPU, {512, 0});
  const auto budgeted = split_metrics(*model, split, batcher, torch::kCPU, {7, 64});
  CHECK(budgeted.acc == whole.acc);
  CHECK(budgeted.loss == Approx(whole.loss).epsilon(1e-5));
  CHECK(std::isfinite(whole.loss));
}
