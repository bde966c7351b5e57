// Attention rollout: the math against hand computations, signed maps, the maps of every
// variant, and the PNG grid of `repro rollout`.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "analysis/figure.h"
#include "analysis/rollout.h"
#include "fixtures.h"
#include "models/model.h"
#include "run/runner.h"
#include "run_repro.h"
#include "spec/experiment.h"
#include "spec/options.h"
#include "util/files.h"

using namespace repro;
using Catch::Matchers::Contains;

namespace {

// One layer's map (1, heads, N, N) from rows, every head the same.
torch::Tensor layer(std::vector<std::vector<double>> rows, int64_t heads = 1) {
  std::vector<double> flat;
  for (const auto& r : rows) flat.insert(flat.end(), r.begin(), r.end());
  const auto n = static_cast<int64_t>(rows.size());
  return torch::tensor(flat, torch::kFloat64).reshape({1, 1, n, n}).expand({1, heads, n, n}).clone();
}

bool close(const torch::Tensor& a, const torch::Tensor& b) { return torch::allclose(a, b, 1e-12, 1e-12); }

torch::Tensor matrix(std::vector<std::vector<double>> rows) { return layer(std::move(rows)).squeeze(1); }

}  // namespace

TEST_CASE("rollout of identity maps is the identity; last-layer is the head mean", "[model]") {
  const auto eye = torch::eye(5, torch::kFloat64).reshape({1, 1, 5, 5}).expand({2, 3, 5, 5});
  const auto rolled = roll_out({eye, eye, eye}, RolloutMethod::Rollout);
  CHECK(rolled.sizes() == torch::IntArrayRef({2, 5, 5}));
  CHECK(close(rolled, torch::eye(5, torch::kFloat64).expand({2, 5, 5})));
  const auto two_heads = torch::stack({layer({{1, 0}, {0, 1}})[0][0], layer({{0, 1}, {1, 0}})[0][0]}).unsqueeze(0);
  CHECK(close(roll_out({two_heads}, RolloutMethod::LastLayer), matrix({{0.5, 0.5}, {0.5, 0.5}})));
  CHECK(rollout_method("excitatory") == RolloutMethod::Excitatory);
  CHECK_THROWS_WITH(rollout_method("grad"), Contains("rollout | last-layer | excitatory"));
}

TEST_CASE("rollout of hand-made 2-layer maps equals the hand computation", "[model]") {
  // Layer 1 A = [[.5, .5], [0, 1]] -> (A + I)/2 = [[.75, .25], [0, 1]];
  // layer 2 A = [[1, 0], [.5, .5]] -> [[1, 0], [.25, .75]];
  // R = L2 · L1 = [[.75, .25], [.1875, .0625 + .75]].
  const auto rolled =
      roll_out({layer({{0.5, 0.5}, {0, 1}}, 2), layer({{1, 0}, {0.5, 0.5}}, 2)}, RolloutMethod::Rollout);
  CHECK(close(rolled, matrix({{0.75, 0.25}, {0.1875, 0.8125}})));
  CHECK(close(token_relevance(rolled, /*class_token_row=*/true), torch::tensor({{0.75, 0.25}}, torch::kFloat64)));
  // Mean pooling over the real tokens: both rows real -> their mean; only row 0 real -> row 0.
  const auto real = torch::tensor({{true, true}});
  CHECK(close(token_relevance(rolled, false, real), torch::tensor({{0.46875, 0.53125}}, torch::kFloat64)));
  CHECK(close(token_relevance(rolled, false, torch::tensor({{true, false}})),
              torch::tensor({{0.75, 0.25}}, torch::kFloat64)));
}

TEST_CASE("signed maps: rows normalised by their absolute sum; excitatory keeps the positive part", "[model]") {
  // A = [[.2, -.5], [.1, .1]] (a differential map: rows sum to -.3 and .2).
  // rollout: A + I = [[1.2, -.5], [.1, 1.1]], absolute row sums 1.7 and 1.2.
  const auto a = layer({{0.2, -0.5}, {0.1, 0.1}});
  const auto rolled = roll_out({a}, RolloutMethod::Rollout);
  CHECK(close(rolled, matrix({{1.2 / 1.7, -0.5 / 1.7}, {0.1 / 1.2, 1.1 / 1.2}})));
  CHECK(rolled[0][0][1].item<double>() < 0);  // inhibition stays negative
  // excitatory: max(A, 0) + I = [[1.2, 0], [.1, 1.1]], rows summing to 1.2 and 1.2.
  CHECK(close(roll_out({a}, RolloutMethod::Excitatory), matrix({{1.0, 0.0}, {0.1 / 1.2, 1.1 / 1.2}})));
  // A row summing to about 0 (dgsa with g near 1/2) stays bounded: every row of a step has absolute sum 1.
  const auto rolled_deep =
      roll_out({layer({{0.5, -0.5}, {-0.5, 0.5}}), layer({{0.5, -0.5}, {-0.5, 0.5}})}, RolloutMethod::Rollout);
  CHECK(rolled_deep.abs().sum(-1).max().item<double>() <= 1.0 + 1e-12);
  CHECK(std::isfinite(rolled_deep.sum().item<double>()));
}

TEST_CASE("every attention variant returns one map per block that rolls out", "[model]") {
  for (const auto kind :
       {AttentionKind::Vanilla, AttentionKind::Diff, AttentionKind::Dgsa, AttentionKind::Plug, AttentionKind::Gi}) {
    INFO(name_of(kind));
    ModelOptions o;
    o.dim = 16;
    o.depth = 2;
    o.heads = 4;
    o.patch = 7;
    o.attention.kind = kind;
    o.attention.dim = o.ffn.dim = 16;
    o.attention.heads = 4;
    o.attention.diff.lambda_schedule = LambdaSchedule::Fixed;
    DatasetInfo info;
    info.name = "fixture";
    info.modality = "image";
    info.channels = 1;
    info.height = info.width = 28;
    info.num_classes = 10;
    torch::manual_seed(0);
    const auto model = build_model(o, info);
    model->eval();
    std::vector<torch::Tensor> maps;
    const auto logits = model->forward({torch::rand({3, 1, 28, 28}), {}}, &maps);
    REQUIRE(maps.size() == 2);
    for (const auto& map : maps) {
      CHECK(map.dim() == 4);
      CHECK(map.size(0) == 3);
      CHECK(map.size(2) == 17);  // 16 patches + the class token
      CHECK(map.size(3) == 17);
    }
    const auto rolled = roll_out(maps, RolloutMethod::Rollout);
    CHECK(rolled.sizes() == torch::IntArrayRef({3, 17, 17}));
    CHECK(rolled.abs().sum(-1).max().item<double>() <= 1.0 + 1e-9);
    if (kind == AttentionKind::Vanilla) CHECK(close(rolled.sum(-1), torch::ones({3, 17}, torch::kFloat64)));
  }
}

TEST_CASE("the rollout grid: a diverging colour map and a PNG of the expected size", "[model]") {
  CHECK(diverging_colour(0) == cv::Vec3b(255, 255, 255));
  CHECK(diverging_colour(1)[2] > 150);   // red
  CHECK(diverging_colour(-1)[0] > 150);  // blue
  CHECK(diverging_colour(-1)[2] < 60);
  test::TempDir dir("rollout_png");
  std::vector<RolloutExample> examples = {{torch::randint(0, 255, {1, 28, 28}).to(torch::kUInt8), "#0 Dress"},
                                          {torch::randint(0, 255, {1, 28, 28}).to(torch::kUInt8), "#1 Bag"}};
  RolloutColumn column{"ViT", {torch::randn({4, 4}), torch::randn({4, 4})}, {"pred Dress", "pred Coat"}, {true, false}};
  const cv::Mat grid = rollout_grid(examples, {column, column}, "fixture");
  write_png(dir.path() / "grid.png", grid);
  const cv::Mat back = cv::imread((dir.path() / "grid.png").string());
  REQUIRE_FALSE(back.empty());
  CHECK(back.cols == 8 + 3 * (128 + 8) + 150);
  CHECK(back.rows == 28 + 40 + 2 * (128 + 18 + 8) + 8);
}

TEST_CASE("repro rollout renders runs side by side on the same test examples", "[cli]") {
  test::TempDir dir("rollout_cli");
  test::ScopedCache cache;
  test::write_fashion_fixture(dir.path() / "data", 64, 16);
  test::write_text(dir.path() / "tiny.yaml", R"(experiment: tiny
datasets: [fashion_mnist]
seeds: [0]
model: {dim: 16, depth: 2, heads: 2, patch: 7, ffn: {ratio: 2}}
data: {verify: off}
train: {epochs: 1, batch_size: 16}
models:
  - name: vit
  - name: dg
    model.attention.kind: dgsa
)");
  RunnerOptions options;
  options.out = dir.path() / "runs";
  options.data_root = (dir.path() / "data").string();
  options.device = "cpu";
  REQUIRE(run_experiment(load_experiment((dir.path() / "tiny.yaml").string()), options) == 0);
  const auto runs = dir.path() / "runs/tiny/fashion_mnist";
  const auto out = dir.path() / "figures";
  const auto result =
      test::run_repro("rollout " + (runs / "vit/seed_0").string() + " " + (runs / "dg/seed_0").string() +
                      " --indices 1,3,5 --out " + out.string() + " --data-root " + (dir.path() / "data").string());
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  const cv::Mat png = cv::imread((out / "fashion_mnist_rollout.png").string());
  REQUIRE_FALSE(png.empty());
  CHECK(png.cols == 8 + 3 * (128 + 8) + 150);
  CHECK(png.rows == 28 + 40 + 3 * (128 + 18 + 8) + 8);
  const auto index = nlohmann::json::parse(read_file(out / "fashion_mnist_rollout.json"));
  CHECK(index["indices"] == nlohmann::json({1, 3, 5}));
  CHECK(index["runs"].size() == 2);
  const auto bad = test::run_repro("rollout " + (runs / "vit/seed_0").string() + " --indices 99 --data-root " +
                                   (dir.path() / "data").string());
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Contains("--indices: got '99'"));
}
