// The shared path for a map that is not a softmax (issue 65, attention/common.h): a sigmoid attention built from
// attention_logits, without_padded_keys and map_times_values leaves padded keys inert and hands its map to a probe,
// as the shared per-variant tests demand of every variant (CONTRIBUTING.md).
#include <torch/torch.h>

#include "catch.h"
#include "models/attention/common.h"
#include "models/attention/map_probe.h"

using namespace repro;

namespace {

// sigmoid(q k^T / sqrt(d) - 1) v over real keys: q, k, v (B, H, N, d), padding (B, N).
torch::Tensor sigmoid_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                                const torch::Tensor& padding, bool drop_padded) {
  auto maps = torch::sigmoid(attention_logits(q, k, 1.0 / std::sqrt(static_cast<double>(q.size(-1)))) - 1.0);
  if (drop_padded) maps = without_padded_keys(maps, padding);
  return map_times_values(maps, v, /*dropout=*/0.1, /*training=*/false);
}

}  // namespace

TEST_CASE("a sigmoid map through the shared helpers: padded keys inert, its map recorded for rollout", "[model]") {
  torch::manual_seed(3);
  const auto options = torch::TensorOptions().dtype(torch::kFloat64);
  const auto q = torch::randn({2, 2, 5, 4}, options), k = torch::randn({2, 2, 5, 4}, options);
  auto v = torch::randn({2, 2, 5, 4}, options);
  auto padding = torch::zeros({2, 5}, torch::kBool);
  padding.index_put_({0, torch::indexing::Slice(3, torch::indexing::None)}, true);  // example 0: keys 3, 4 padded
  const auto out = sigmoid_attention(q, k, v, padding, true);
  // Other values at the padded keys change no output of example 0 (a sigmoid of any logit is not 0, so without the
  // helper they would: the check can fail).
  auto v_changed = v.clone();
  v_changed.index_put_({0, torch::indexing::Slice(), torch::indexing::Slice(3, torch::indexing::None)}, 100.0);
  CHECK(torch::allclose(sigmoid_attention(q, k, v_changed, padding, true)[0], out[0], 0, 0));
  CHECK_FALSE(torch::allclose(sigmoid_attention(q, k, v_changed, padding, false)[0],
                              sigmoid_attention(q, k, v, padding, false)[0]));
  // Without a mask the helper changes nothing.
  const auto maps = torch::rand({2, 2, 5, 5}, options);
  CHECK(torch::equal(without_padded_keys(maps, torch::Tensor()), maps));
  // Under a probe the map is recorded (one (B, H, N, N) per call), before dropout; without one, nothing is kept.
  {
    AttentionMapProbe probe;
    sigmoid_attention(q, k, v, padding, true);
    REQUIRE(probe.maps().size() == 1);
    CHECK(probe.maps()[0].sizes() == torch::IntArrayRef({2, 2, 5, 5}));
    CHECK(probe.maps()[0].index({0, 0, 0, 3}).item<double>() == 0.0);  // the padded key's weight
    CHECK(probe.maps()[0].index({1, 0, 0, 3}).item<double>() > 0.0);
  }
  CHECK(AttentionMapProbe::active() == nullptr);
  // Evaluation draws no dropout: map times values exactly.
  CHECK(torch::allclose(map_times_values(maps, v, 0.5, false), torch::matmul(maps, v), 1e-12, 1e-12));
}
