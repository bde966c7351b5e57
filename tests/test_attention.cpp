// What every attention variant of the registry must satisfy, whatever its formula: the same
// output with and without maps, fused and explicit paths alike, gradients equal to finite
// differences (float64) and float32 gradients equal to float64 ones, outputs at real positions
// blind to the contents of padded ones, and one registry row per variant whose spec side
// (keys, defaults) is well formed. A new variant is picked up here from the registry; its
// formula and identities go in its own tests/test_attention_<name>.cpp.
#include <set>

#include "attention_harness.h"
#include "catch.h"
#include "models/attention/registry.h"
#include "probed.h"
#include "spec/attention_variant.h"
#include "spec/keys.h"

using namespace repro;
using namespace repro::test;
using torch::indexing::Slice;

TEST_CASE("with and without maps every variant gives the same output (float32)", "[model]") {
  // diff and dgsa combine the maps first with maps, the two outputs first without.
  const auto x = inputs().to(torch::kFloat32), pad = padding();
  for (const auto& kind : registry_kinds()) {
    INFO(kind);
    auto m = build(variant_options(kind));
    m->to(torch::kFloat32);
    torch::Tensor maps;
    CHECK(max_diff(forward_probed(m, x, pad, maps), m->forward(x, pad)) <= 1e-5);
  }
}

TEST_CASE("fused and explicit paths agree in float32, with and without a padding mask", "[model]") {
#if TORCH_VERSION_MAJOR >= 2
  const auto x = inputs().to(torch::kFloat32);
  // No mask (images) is the case LibTorch 2.6 refused when the fused path passed an undefined tensor.
  for (const auto& pad : {padding(), torch::Tensor()}) {
    for (const auto& kind : registry_kinds()) {
      INFO(kind << (pad.defined() ? " with padding" : " without padding"));
      ModelOptions options = variant_options(kind);
      REQUIRE(options.attention.fused);  // the default: fused where LibTorch has the kernel
      auto fused = build(options);
      options.attention.fused = false;
      auto explicit_path = build(options);  // the same seed: the same weights
      fused->to(torch::kFloat32);
      explicit_path->to(torch::kFloat32);
      CHECK(max_diff(explicit_path->forward(x, pad), fused->forward(x, pad)) <= 1e-5);
    }
  }
#else
  WARN("SKIPPED: LibTorch " TORCH_VERSION " has no fused scaled_dot_product_attention (2.0+); nothing to compare");
#endif
}

TEST_CASE("every variant's gradients match central finite differences (float64)", "[model]") {
  for (const auto& kind : registry_kinds()) {
    INFO(kind);
    check_gradients_by_finite_differences(variant_options(kind));
  }
}

TEST_CASE("every variant's float32 gradients equal the float64 gradients of the same weights", "[model]") {
  for (const auto& kind : registry_kinds()) {
    INFO(kind);
    check_float32_gradients(variant_options(kind));
  }
}

TEST_CASE("contents of padded positions do not change outputs at real positions", "[model]") {
  const auto x = inputs(), pad = padding();
  auto changed = x.clone();
  changed.index_put_({1, Slice(3, 5)}, 1000.0);
  for (const auto& kind : registry_kinds()) {
    INFO(kind);
    auto m = build(variant_options(kind));
    const auto a = m->forward(x, pad), b = m->forward(changed, pad);
    CHECK(max_diff(a[0], b[0]) <= 1e-12);
    CHECK(max_diff(a[1].slice(0, 0, 3), b[1].slice(0, 0, 3)) <= 1e-12);
  }
}

TEST_CASE("the registry lists each variant once; spec/ holds the same variants with their keys", "[model]") {
  std::set<std::string> names;
  for (const auto& entry : attention_table()) {
    INFO(entry.variant->name);
    CHECK(names.insert(entry.variant->name).second);
    CHECK(!entry.variant->summary.empty());
    CHECK(entry.make != nullptr);
  }
  REQUIRE(attention_variants().size() == attention_table().size());
  for (size_t i = 0; i < attention_table().size(); ++i) CHECK(attention_variants()[i] == attention_table()[i].variant);
  // model.attention.kind offers exactly the installed names; each variant's keys are in the table,
  // under model.attention., with a doc naming the variant(s) that read it.
  const KeyDef* kind = find_key("model.attention.kind");
  REQUIRE(kind != nullptr);
  CHECK(std::set<std::string>(kind->choices.begin(), kind->choices.end()) == names);
  for (const AttentionVariant* variant : attention_variants())
    for (const VariantKey& key : variant->keys) {
      INFO(variant->name << ": " << key.def.key);
      CHECK(find_key(key.def.key) != nullptr);
      CHECK(key.def.key.rfind("model.attention.", 0) == 0);
      CHECK(key.def.doc.find(variant->name) != std::string::npos);
    }
}

TEST_CASE("installing another list of variants, or none, is an internal error", "[model]") {
  CHECK_THROWS_WITH(install_attention_variants(std::vector<const AttentionVariant*>{attention_table()[0].variant}),
                    Contains("another list of attention variants"));
  install_attention_variants();  // the same list again: nothing happens
  CHECK(attention_variants().size() == attention_table().size());
}
