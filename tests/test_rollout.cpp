// Attention rollout: the math against hand computations, signed maps, the maps of every
// variant, the PNG grid of `repro rollout`, and its text path (token decoding, token strips
// as PNG and HTML, --match).
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "analysis/figure.h"
#include "analysis/html.h"
#include "analysis/rollout.h"
#include "analysis/token_strip.h"
#include "catch.h"
#include "cli/rollout_text.h"
#include "fixtures.h"
#include "models/attention/registry.h"
#include "models/model.h"
#include "probed.h"
#include "run/runner.h"
#include "run_repro.h"
#include "spec/experiment.h"
#include "spec/options.h"
#include "text/word_tokenizer.h"
#include "util/files.h"

using namespace repro;
using repro::test::Contains;

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
  for (const auto& entry : attention_table()) {  // every registered kind
    const std::string& kind = entry.variant->name;
    INFO(kind);
    ModelOptions o;
    o.dim = 16;
    o.depth = 2;
    o.heads = 4;
    o.patch = 7;
    o.attention = attention_defaults(*entry.variant);
    DatasetInfo info;
    info.name = "fixture";
    info.modality = Modality::Image;
    info.channels = 1;
    info.height = info.width = 28;
    info.num_classes = 10;
    torch::manual_seed(0);
    const auto model = build_model(o, info);
    model->eval();
    std::vector<torch::Tensor> maps;
    const auto logits = test::forward_probed(*model, {torch::rand({3, 1, 28, 28}), {}}, maps);
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
    if (kind == "vanilla") CHECK(close(rolled.sum(-1), torch::ones({3, 17}, torch::kFloat64)));
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
  options.device = DeviceChoice::Cpu;
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

namespace {

StripBlock strip_block(const std::string& title, const std::vector<std::pair<std::string, double>>& tokens) {
  StripBlock block{title, "pred sci.space (p 0.50)", true, {}};
  for (const auto& [text, value] : tokens) block.tokens.push_back({text, value, false});
  return block;
}

// The number of times `needle` occurs in `haystack`.
size_t occurrences(const std::string& haystack, const std::string& needle) {
  size_t count = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++count;
  return count;
}

}  // namespace

TEST_CASE("word tokenizer: token(id) inverts encode; unknown ids and other tokenizers are refused", "[model]") {
  const WordTokenizer tokenizer({"the cat sat on the mat.", "the dog sat"}, 1, 100, true);
  const auto ids = tokenizer.encode("The dog sat on the mat.");
  std::vector<std::string> decoded;
  for (const auto id : ids) decoded.push_back(tokenizer.token(id));
  CHECK(decoded == word_tokens("The dog sat on the mat.", true));
  CHECK(tokenizer.token(kUnkId) == "<unk>");
  CHECK(tokenizer.token(tokenizer.encode("zebra").at(0)) == "<unk>");
  CHECK_THROWS_WITH(tokenizer.token(tokenizer.vocab_size()), Contains("outside the vocabulary"));
}

TEST_CASE("decode_row: <cls> and padding left out, an <unk> shows the raw word when the text lines up", "[model]") {
  TestTexts texts;
  texts.texts = {"Xlib draws lines", "other"};
  texts.tokenizer = std::make_unique<WordTokenizer>(std::vector<std::string>{"draws lines"}, 1, 100, true);
  texts.word_level = true;
  const auto ids = pack({texts.tokenizer->encode(texts.texts[0])}, 6)[0];  // (6,) <cls> <unk> draws lines 0 0
  const auto tokens = decode_row(texts, 0, ids);
  REQUIRE(tokens.size() == 3);
  CHECK(tokens[0].text == "xlib");
  CHECK(tokens[0].unknown);
  CHECK(tokens[1].text == "draws");
  CHECK_FALSE(tokens[1].unknown);
  CHECK(decode_row(texts, 1, ids)[0].text == "<unk>");  // "other" does not line up with these ids
  CHECK(find_text(texts.texts, "draws") == 0);
  CHECK_THROWS_WITH(find_text(texts.texts, "Most graphics"), Contains("'Most graphics'") && Contains("test_limit"));
}

TEST_CASE("token strip PNG: page width, height grows with the tokens, colours follow the relevance", "[model]") {
  test::TempDir dir("token_strip");
  StripFigure figure{"fixture #3: attention rollout", "true label sci.space", "", {}};
  figure.blocks.push_back(strip_block("Transformer", {{"orbit", 1.0}, {"the", -1.0}, {"moon", 0.0}}));
  const cv::Mat small = token_strip(figure);
  write_png(dir.path() / "strip.png", small);
  const cv::Mat back = cv::imread((dir.path() / "strip.png").string());
  REQUIRE_FALSE(back.empty());
  CHECK(back.cols == kStripWidth);
  CHECK(back.rows > 100);
  CHECK(back.rows < 300);
  std::vector<std::pair<std::string, double>> many;
  for (int i = 0; i < 300; ++i) many.push_back({"token" + std::to_string(i), i % 7 - 3.0});
  figure.blocks.push_back(strip_block("DGT", many));
  CHECK(token_strip(figure).rows > small.rows + 200);  // wrapped onto many lines
  figure.blocks.pop_back();
  figure.blocks[0].tokens[0].relevance = -1.0;  // orbit now inhibitory
  const cv::Mat flipped = token_strip(figure);
  REQUIRE(flipped.size() == small.size());
  CHECK(cv::norm(flipped, small, cv::NORM_L1) > 0);
}

TEST_CASE("token strip HTML: every token once, escaped, signed colours and a legend", "[model]") {
  StripFigure figure{"fixture <#3>", "true label a&b", "truncated at 3 of 9 tokens", {}};
  figure.blocks.push_back(strip_block("DGT", {{"<b>", 2.0}, {"R&D", -1.0}, {"plain", 0.0}}));
  figure.blocks[0].tokens[2].unknown = true;
  const std::string page = token_strip_html(figure);
  CHECK(occurrences(page, ">&lt;b&gt;</span>") == 1);
  CHECK(occurrences(page, ">R&amp;D</span>") == 1);
  CHECK(occurrences(page, ">plain</span>") == 1);
  CHECK(page.find("<b>") == std::string::npos);  // nothing unescaped
  CHECK_THAT(page, Contains("fixture &lt;#3&gt;") && Contains("a&amp;b") && Contains("truncated at 3 of 9 tokens"));
  // Mean 1/3; |deviations| 5/3, 4/3, 1/3, the 95th percentile 5/3: t = +1, -0.8, -0.2.
  const cv::Vec3b red = diverging_colour(1), blue = diverging_colour(-0.8), pale = diverging_colour(-0.2);
  CHECK_THAT(page, Contains(fmt::format("background:rgb({},{},{});", red[2], red[1], red[0])));
  CHECK_THAT(page, Contains(fmt::format("background:rgb({},{},{});", blue[2], blue[1], blue[0])));
  CHECK_THAT(page, Contains(fmt::format("background:rgb({},{},{});", pale[2], pale[1], pale[0])));
  CHECK_THAT(page, Contains("title=\"+2 (block mean +0.3333; +1.00 on the colour scale)\""));
  CHECK_THAT(page,
             Contains("not in the vocabulary") && Contains("linear-gradient") && Contains("above the block's mean"));
}

// The committed strips were one saturated colour: mean-pooled rollouts put every token at 0.7-1.0 of the block's
// largest relevance. Deviation from the block's mean, on a robust range, shows the differences.
TEST_CASE("token strip colours: deviation from the block's mean, robust to one outlier", "[model]") {
  const StripBlock narrow = strip_block("Transformer", {{"a", 0.72}, {"b", 0.86}, {"c", 1.0}});
  const StripScale scale = strip_scale(narrow);
  CHECK(scale.mean == Approx(0.86));
  CHECK(scaled_relevance(scale, narrow.tokens[0]) == Approx(-1.0));
  CHECK(scaled_relevance(scale, narrow.tokens[1]) == Approx(0.0).margin(1e-12));
  CHECK(scaled_relevance(scale, narrow.tokens[2]) == Approx(1.0));
  std::vector<std::pair<std::string, double>> tokens;
  for (int i = 0; i < 40; ++i) tokens.push_back({"t" + std::to_string(i), 1.0 + 0.01 * (i % 5)});
  tokens.push_back({"outlier", 50.0});
  const StripBlock skewed = strip_block("DGT", tokens);
  const StripScale robust = strip_scale(skewed);
  CHECK(scaled_relevance(robust, skewed.tokens.back()) == 1.0);  // clipped, not the scale
  double lowest = 1, highest = -1;
  for (size_t i = 0; i + 1 < skewed.tokens.size(); ++i) {
    lowest = std::min(lowest, scaled_relevance(robust, skewed.tokens[i]));
    highest = std::max(highest, scaled_relevance(robust, skewed.tokens[i]));
  }
  CHECK(highest - lowest > 0);  // the ordinary tokens still differ (the outlier sets no scale)
  CHECK(scaled_relevance(strip_scale(strip_block("x", {{"a", 2.0}, {"b", 2.0}})), {"a", 2.0, false}) == 0.0);
}

TEST_CASE("repro rollout of text runs: token strips by position and by --match", "[cli]") {
  test::TempDir dir("rollout_text");
  test::ScopedCache cache;
  test::write_bytes(dir.path() / "data/ag_news/ag_news_csv/train.csv", test::ag_news_csv(64), false);
  test::write_bytes(dir.path() / "data/ag_news/ag_news_csv/test.csv", test::ag_news_csv(40), false);
  test::write_text(dir.path() / "text.yaml", R"(experiment: text
datasets: [ag_news]
seeds: [0]
model: {dim: 16, depth: 2, heads: 2, ffn: {ratio: 2}}
data: {val_fraction: 0.25, verify: off, test_limit: 20}
text: {max_len: 6}
train: {epochs: 1, batch_size: 16}
models:
  - name: Transformer
    model.preset: transformer
  - name: DGT
    model.preset: dgt
)");
  RunnerOptions options;
  options.out = dir.path() / "runs";
  options.data_root = (dir.path() / "data").string();
  options.device = DeviceChoice::Cpu;
  REQUIRE(run_experiment(load_experiment((dir.path() / "text.yaml").string()), options) == 0);
  const auto runs = dir.path() / "runs/text/ag_news";
  const std::string both = (runs / "Transformer/seed_0").string() + " " + (runs / "DGT/seed_0").string();
  const std::string data = " --data-root " + (dir.path() / "data").string();
  const auto out = dir.path() / "figures";
  const auto result = test::run_repro("rollout " + both + " data.test_limit=0 --indices 2 --match 'title 17 ' --out " +
                                      out.string() + data);
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  const auto index = nlohmann::json::parse(read_file(out / "ag_news_rollout.json"));
  REQUIRE(index["indices"].size() == 2);
  CHECK(index["indices"][0] == 2);
  const int64_t matched = index["indices"][1].get<int64_t>();
  CHECK(index["runs"].size() == 2);
  const auto& example = index["examples"][1];
  CHECK(example["tokens"] == 5);  // max_len 6 minus <cls>
  CHECK(example["tokens_in_text"].get<int64_t>() > 5);
  const cv::Mat png = cv::imread((out / fmt::format("ag_news_rollout_{}.png", matched)).string());
  REQUIRE_FALSE(png.empty());
  CHECK(png.cols == kStripWidth);
  const std::string page = read_file(out / fmt::format("ag_news_rollout_{}.html", matched));
  CHECK_THAT(page, Contains("(a) Transformer") && Contains("(b) DGT") && Contains("truncated at 5 of"));
  CHECK(occurrences(page, ">17</span>") == 2);  // the matched title's number, once per run
  const auto missing = test::run_repro("rollout " + both + " --match 'Most graphics systems'" + data);
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output, Contains("no test text contains 'Most graphics systems'"));
  const auto bad_key = test::run_repro("rollout " + both + " model.dim=8" + data);
  CHECK(bad_key.exit_code == 2);
  CHECK_THAT(bad_key.output, Contains("model.dim"));
}
