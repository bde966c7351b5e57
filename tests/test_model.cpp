// ViT shapes, parameter counts against a hand count, weight-decay groups, and
// the attention paths.
#include <catch2/catch.hpp>

#include "data/fashion_mnist.h"
#include "models/attention/common.h"
#include "models/attention/registry.h"
#include "models/model.h"
#include "models/param_count.h"
#include "spec/config.h"

using namespace repro;

namespace {

Config tiny_config() {
  Config config = Config::defaults();
  config.set("model.dim", "16", "t");
  config.set("model.depth", "2", "t");
  config.set("model.heads", "2", "t");
  config.set("model.patch", "7", "t");
  config.set("model.ffn.ratio", "2", "t");
  return config;
}

}  // namespace

TEST_CASE("ViT maps images to logits and returns one map per block", "[model]") {
  torch::manual_seed(0);
  const auto model = build_model(tiny_config(), fashion_mnist_info());
  std::vector<torch::Tensor> maps;
  model->eval();
  const auto logits = model->forward({torch::randn({3, 1, 28, 28}), {}}, &maps);
  CHECK(logits.sizes() == torch::IntArrayRef({3, 10}));
  REQUIRE(maps.size() == 2);
  CHECK(maps[0].sizes() == torch::IntArrayRef({3, 2, 17, 17}));  // 16 patches + class token
  CHECK(torch::allclose(maps[0].sum(-1), torch::ones({3, 2, 17})));
}

TEST_CASE("ViT parameter count equals the hand count", "[model]") {
  const auto model = build_model(tiny_config(), fashion_mnist_info());
  const int64_t D = 16, P = 16, hidden = 32, classes = 10;
  const int64_t embeddings = (1 * 7 * 7 * D + D) + D + (P + 1) * D;
  const int64_t attention = (D * 3 * D + 3 * D) + (D * D + D);
  const int64_t ffn = (D * hidden + hidden) + (hidden * D + D);
  const int64_t norms = 2 * (2 * D);
  const int64_t per_block = attention + ffn + norms;
  const int64_t expected = embeddings + 2 * per_block + 2 * D + (D * classes + classes);
  const ParamBreakdown count = count_parameters(*model);
  CHECK(count.total == expected);
  CHECK(count.parts[1].second == 2 * attention);
  CHECK(count.parts[2].second == 2 * ffn);
  CHECK(count.parts[3].second == 2 * 2 * (2 * D) + 2 * D);
}

TEST_CASE("weight decay skips biases, norms, class token and positions", "[model]") {
  const auto model = build_model(tiny_config(), fashion_mnist_info());
  for (const auto& item : model->named_parameters()) {
    const std::string& name = item.key();
    const bool expected = item.value().dim() >= 2 && name != "cls_token" && name != "pos_embed";
    INFO(name);
    CHECK(decays(name, item.value()) == expected);
  }
  CHECK_FALSE(decays("cls_token", torch::zeros({1, 1, 4})));
  CHECK(decays("blocks.0.attn.qkv.weight", torch::zeros({4, 4})));
}

TEST_CASE("fused and explicit attention paths agree", "[model]") {
  torch::manual_seed(1);
  AttentionOptions options;
  options.dim = 16;
  options.heads = 4;
  const auto attention = make_attention("vanilla", options);
  attention->eval();
  const auto x = torch::randn({2, 5, 16});
  const auto padding = torch::tensor({0, 0, 0, 1, 1}, torch::kBool).expand({2, 5}).contiguous();
  set_fused_attention_enabled(false);
  torch::Tensor maps;
  const auto explicit_out = attention->forward(x, padding, &maps);
  set_fused_attention_enabled(true);
  const auto fused_out = attention->forward(x, padding, nullptr);
  CHECK(torch::allclose(explicit_out, fused_out, 1e-5, 1e-5));
  // Padded keys get no weight; contents at padded positions do not change real outputs.
  CHECK(maps.index({torch::indexing::Slice(), torch::indexing::Slice(), torch::indexing::Slice(), 3}).abs().max().item<float>() == 0);
  auto changed = x.clone();
  changed.index_put_({torch::indexing::Slice(), 3}, 100.0);
  const auto changed_out = attention->forward(changed, padding, nullptr);
  CHECK(torch::allclose(changed_out.slice(1, 0, 3), fused_out.slice(1, 0, 3), 1e-5, 1e-5));
}
