// vanilla: softmax(Q K^T / sqrt(d)) V against the independent recomputation (float64).
#include "attention_harness.h"
#include "catch.h"
#include "probed.h"

using namespace repro;
using namespace repro::test;

TEST_CASE("vanilla equals an independent recomputation of its formula (float64)", "[model]") {
  const auto x = inputs(), pad = padding();
  torch::Tensor maps, reference_maps;
  const auto m = build(variant_options("vanilla"));
  const auto y = forward_probed(m, x, pad, maps);
  CHECK(max_diff(y, vanilla_reference(x, pad, params_of(m), kHeads, &reference_maps)) <= 1e-10);
  CHECK(max_diff(maps, reference_maps) <= 1e-10);
  CHECK(max_diff(maps.sum(-1), torch::ones_like(maps.sum(-1))) <= 1e-12);  // rows sum to 1
}
