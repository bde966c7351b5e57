// The bag-of-words floor (model.kind: bow: TF-IDF features computed by hand on a tiny fixture, the linear
// layer, what it ignores), and the two readings of the Transformer that the 20 Newsgroups baseline probe adds
// as spec options: fixed sinusoidal positions and post-norm blocks.
#include <cmath>
#include <nlohmann/json.hpp>

#include "catch.h"
#include "data/loader.h"
#include "data/prepare_text.h"
#include "data/registry.h"
#include "fixtures.h"
#include "models/attention/attention.h"
#include "models/attention/registry.h"
#include "models/block.h"
#include "models/bow.h"
#include "models/ffn/ffn.h"
#include "models/model.h"
#include "models/param_count.h"
#include "models/text.h"
#include "run_repro.h"
#include "spec/config.h"
#include "spec/keys.h"
#include "spec/presets.h"
#include "text/tokenizer.h"
#include "util/files.h"

using namespace repro;
using repro::test::Contains;
using repro::test::Result;
using repro::test::run_repro;

namespace {

// Six ids: 0 <pad>, 1 <unk>, 2 <cls>, then the words a = 3, b = 4, c = 5. Three training texts.
torch::Tensor training_ids() {
  return torch::tensor(std::vector<int64_t>{2, 3, 3, 4, 0,   // <cls> a a b
                                            2, 4, 5, 0, 0,   // <cls> b c
                                            2, 1, 3, 0, 0})  // <cls> <unk> a
      .view({3, 5});
}

DatasetInfo tiny_text(bool counted) {
  DatasetInfo info;
  info.name = "tiny";
  info.modality = Modality::Text;
  info.vocab_size = 6;
  info.max_length = 5;
  info.num_classes = 2;
  if (counted) {
    info.first_word = 3;
    info.document_frequency = document_frequency(training_ids(), 6);
    info.train_texts = 3;
  }
  return info;
}

ModelOptions bow_options() {
  ModelOptions o;
  o.kind = ModelKind::Bow;
  o.attention = attention_defaults("vanilla");
  return o;
}

}  // namespace

TEST_CASE("bag of words: document frequencies, IDF and TF-IDF rows as computed by hand", "[model]") {
  // df: <pad> and <cls> are in all three texts, <unk> in one, a in texts 0 and 2, b in 0 and 1, c in 1.
  const auto df = document_frequency(training_ids(), 6);
  CHECK(df.equal(torch::tensor(std::vector<int64_t>{3, 1, 3, 2, 2, 1})));
  CHECK(document_frequency(torch::zeros({0, 5}, torch::kInt64), 6).equal(torch::zeros({6}, torch::kInt64)));
  // idf = ln((1 + 3) / (1 + df)) + 1: a, b: ln(4/3) + 1 = 1.2876821; c: ln 2 + 1 = 1.6931472; specials 0.
  const auto idf = inverse_document_frequency(df, 3, 3);
  const std::vector<float> want_idf = {0, 0, 0, 1.2876821f, 1.2876821f, 1.6931472f};
  CHECK(torch::allclose(idf, torch::tensor(want_idf), 1e-6, 1e-6));
  // Rows: tf ⊙ idf, L2-normalised. Text 0 (a a b): (2, 1)·1.2877 / norm = (2, 1)/√5 = (0.8944272, 0.4472136).
  // Text 1 (b c): (1.2876821, 1.6931472)/2.1271751 = (0.6053485, 0.7959605). Text 2 (<unk> a): a = 1.
  // A text of specials only ([<cls>, <unk>]) has no word: its row stays 0.
  const auto ids = torch::cat({training_ids(), torch::tensor(std::vector<int64_t>{2, 1, 0, 0, 0}).view({1, 5})});
  const auto x = tfidf_features(ids, idf);
  const std::vector<float> want = {0, 0, 0, 0.8944272f, 0.4472136f, 0,           //
                                   0, 0, 0, 0,          0.6053485f, 0.7959605f,  //
                                   0, 0, 0, 1,          0,          0,           //
                                   0, 0, 0, 0,          0,          0};
  CHECK(torch::allclose(x, torch::tensor(want).view({4, 6}), 1e-6, 1e-6));
}

// The data layer, not the test, says where the words begin (issue 57: the IDF test above sets first_word by hand;
// a <cls> given the IDF of a word, ln((1 + n) / (1 + n)) + 1 = 1, passed every test).
TEST_CASE("bag of words on prepared text: the specials <pad>, <unk> and <cls> get IDF 0, every word more", "[model]") {
  test::TempDir dir("bow-prepared");
  test::ScopedCache cache;
  std::string csv;
  for (int i = 0; i < 40; ++i)
    csv += "\"" + std::to_string(i % 4 + 1) + "\",\"title " + std::to_string(i % 4) + "\",\"some text\"\n";
  test::write_tar(dir.path() / "ag_news/ag_news_csv-test-only.tar.xz", {{"ag_news_csv/test.csv", csv}});
  Config config = Config::defaults();
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"model.kind", "bow"}, {"data.verify", "off"}, {"data.missing_train", "split_test"}})
    config.set(key, value, "t");
  resolve_settings(config, find_dataset("ag_news").info().traits());
  const RunData data = DataLoader(dir.path()).run_data("ag_news", test::input_options(config));
  CHECK(data.info.first_word == kClsId + 1);
  const auto idf =
      inverse_document_frequency(data.info.document_frequency, data.info.train_texts, data.info.first_word);
  REQUIRE(idf.size(0) > kClsId + 1);
  for (const int64_t special : {kPadId, kUnkId, kClsId}) CHECK(idf[special].item<float>() == 0);
  CHECK(idf.slice(0, kClsId + 1).min().item<float>() >= 1);  // idf = ln((1 + n) / (1 + df)) + 1 >= 1
}

TEST_CASE("bag of words: logits W x + b, its parameters, what it ignores, text only", "[model]") {
  const DatasetInfo info = tiny_text(true);
  auto model = build_model(bow_options(), info);
  // Parameters: the head only, classes × V + classes = 2·6 + 2; the IDF is a buffer, kept with the weights.
  CHECK(count_parameters(*model).total == 14);
  const auto buffers = model->named_buffers();
  REQUIRE(buffers.contains("idf"));
  CHECK(buffers["idf"][3].item<float>() == Approx(1.2876821f));
  {
    torch::NoGradGuard no_grad;
    auto params = model->named_parameters();
    params["head.weight"].copy_(torch::tensor(std::vector<float>{0, 0, 0, 1, 2, 3, 0, 0, 0, -1, 0, 1}).view({2, 6}));
    params["head.bias"].copy_(torch::tensor(std::vector<float>{0.5f, -0.5f}));
  }
  const auto ids = torch::tensor(std::vector<int64_t>{2, 3, 3, 4, 0}).view({1, 5});  // x = (a 0.8944, b 0.4472)
  const auto logits = model->forward({ids, {}});
  // class 0: 0.8944·1 + 0.4472·2 + 0.5 = 2.2888544; class 1: −0.8944 − 0.5 = −1.3944272.
  CHECK(torch::allclose(logits, torch::tensor(std::vector<float>{2.2888544f, -1.3944272f}).view({1, 2}), 1e-5, 1e-5));
  // More padding, <unk> and another <cls> change nothing: they are not words.
  const auto noisier = torch::tensor(std::vector<int64_t>{2, 3, 1, 3, 2, 4, 1, 0, 0}).view({1, 9});
  CHECK(torch::allclose(model->forward({noisier, {}}), logits, 1e-6, 1e-6));
  // Without counts (plan checks, parameter counts) it builds with idf 1, the same shapes.
  CHECK(count_parameters(*build_model(bow_options(), tiny_text(false))).total == 14);
  DatasetInfo images;
  images.name = "fashion_mnist";
  images.modality = Modality::Image;
  images.channels = 1, images.height = images.width = 28, images.num_classes = 10;
  CHECK_THROWS_WITH(build_model(bow_options(), images), Contains("model.kind=bow needs a text dataset"));
}

TEST_CASE("text positions: the sinusoidal table by hand; fixed, not trained; embeddings scaled by sqrt(D)", "[model]") {
  // P[p, 2i] = sin(p / 10000^(2i/D)), P[p, 2i+1] = cos(…), D = 6.
  const auto table = sinusoidal_positions(6, 6);
  CHECK(table.sizes() == torch::IntArrayRef({1, 6, 6}));
  CHECK(table[0][1][0].item<float>() == Approx(0.8414710));                    // sin 1
  CHECK(table[0][1][1].item<float>() == Approx(0.5403023));                    // cos 1
  CHECK(table[0][2][2].item<float>() == Approx(0.0926985));                    // sin(2 / 10000^(1/3))
  CHECK(table[0][3][5].item<float>() == Approx(0.9999791));                    // cos(3 / 10000^(2/3))
  CHECK(table[0][5][3].item<float>() == Approx(0.9731902));                    // cos(5 / 10000^(1/3))
  CHECK(sinusoidal_positions(3, 5).sizes() == torch::IntArrayRef({1, 3, 5}));  // odd width: the last is a sine

  ModelOptions o = bow_options();
  o.kind = ModelKind::Text;
  o.dim = 16;
  o.heads = 2;
  o.depth = 1;
  o.pool = Pool::Mean;
  DatasetInfo info = tiny_text(false);
  info.vocab_size = 20, info.max_length = 8;
  const int64_t learned = count_parameters(*build_model(o, info)).total;
  o.positions = Positions::Sinusoidal;
  auto model = build_model(o, info);
  CHECK(count_parameters(*model).total == learned - 8 * 16);  // the 8 × 16 table is no parameter
  const auto buffers = model->named_buffers();
  REQUIRE(buffers.contains("pos_embed"));
  CHECK(buffers["pos_embed"].equal(sinusoidal_positions(8, 16)));
  // The token embeddings enter scaled by sqrt(16) = 4. With no block, the model is head(mean(norm(4·E[id] + P))).
  o.depth = 0;
  torch::manual_seed(1);
  auto bare = build_model(o, info);
  bare->eval();
  const auto ids = torch::tensor(std::vector<int64_t>{2, 5, 7}).view({1, 3});
  auto children = bare->named_children();
  auto params = bare->named_parameters();
  const auto embedded = 4.0 * params["token_embed.weight"].index_select(0, ids[0]).unsqueeze(0) +
                        sinusoidal_positions(3, 16);  // (1, 3, 16)
  const auto pooled = children["norm"]->as<torch::nn::LayerNormImpl>()->forward(embedded).mean(1);
  const auto want = children["head"]->as<torch::nn::LinearImpl>()->forward(pooled);
  CHECK(torch::allclose(bare->forward({ids, {}}), want, 1e-5, 1e-5));
  o.kind = ModelKind::Vit;
  DatasetInfo images = info;
  images.modality = Modality::Image, images.channels = 1, images.height = images.width = 28;
  o.patch = 7;
  CHECK_THROWS_WITH(build_model(o, images), Contains("model.positions=sinusoidal applies to model.kind=text only"));
}

TEST_CASE("post-norm blocks: h = norm1(x + attn(x)), out = norm2(h + ffn(h))", "[model]") {
  ModelOptions o = bow_options();
  o.kind = ModelKind::Text;
  o.dim = 8;
  o.heads = 2;
  o.dropout = 0;
  torch::manual_seed(3);
  const auto x = torch::randn({2, 5, 8});
  for (const auto placement : {NormPlacement::Pre, NormPlacement::Post}) {
    INFO(name_of(placement));
    o.norm_placement = placement;
    torch::manual_seed(0);
    EncoderBlock block(o, 0);
    block->eval();
    auto children = block->named_children();
    auto& attn = *children["attn"]->as<AttentionImpl>();
    auto& ffn = *children["ffn"]->as<FeedForwardImpl>();
    auto& norm1 = *children["norm1"]->as<torch::nn::LayerNormImpl>();
    auto& norm2 = *children["norm2"]->as<torch::nn::LayerNormImpl>();
    torch::Tensor want;
    if (placement == NormPlacement::Post) {
      const auto h = norm1.forward(x + attn.forward(x, {}));
      want = norm2.forward(h + ffn.forward(h));
    } else {
      const auto h = x + attn.forward(norm1.forward(x), {});
      want = h + ffn.forward(norm2.forward(h));
    }
    const auto got = block->forward(x, {});
    CHECK(torch::allclose(got, want, 1e-6, 1e-6));
    // Only post-norm leaves each token normalised (mean 0 and variance 1 under LayerNorm's initial weights).
    const bool normalised = torch::allclose(got.mean(-1), torch::zeros({2, 5}), 1e-5, 1e-5);
    CHECK(normalised == (placement == NormPlacement::Post));
  }
}

TEST_CASE("a bag-of-words run trains and is recorded like every run", "[cli]") {
  test::TempDir dir("bow-run");
  std::string pos, neg;
  for (int i = 0; i < 60; ++i) {
    pos += "a fine film , truly great number " + std::to_string(i % 5) + "\n";
    neg += "a dull film , truly awful number " + std::to_string(i % 5) + "\n";
  }
  test::write_tar(dir.path() / "data/rotten_tomatoes/rt-polaritydata.tar.gz",
                  {{"rt-polaritydata/rt-polarity.pos", pos}, {"rt-polaritydata/rt-polarity.neg", neg}});
  test::write_text(dir.path() / "bow.yaml",
                   "experiment: floor\ndatasets: [rotten_tomatoes]\nseeds: [0]\n"
                   "model: {kind: bow}\ntrain: {epochs: 3, batch_size: 16, lr: 0.05}\ndata: {verify: off}\n"
                   "models: [{name: Bag of words}]\n");
  ::setenv("REPRO_CACHE", (dir.path() / "cache").c_str(), 1);
  const Result result =
      run_repro("run " + (dir.path() / "bow.yaml").string() + " --data-root " + (dir.path() / "data").string() +
                " --out " + (dir.path() / "runs").string() + " --device cpu --threads 1");
  ::unsetenv("REPRO_CACHE");
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  const auto run = dir.path() / "runs/floor/rotten_tomatoes/Bag_of_words/seed_0";  // the row name made folder-safe
  const auto summary = nlohmann::json::parse(read_file(run / "summary.json"));
  CHECK(summary["status"] == "complete");
  // <pad> <unk> <cls> and the 14 words, each seen at least twice in training: a fine film , truly great number
  // 0-4 dull awful.
  const int64_t vocabulary = 3 + 14;
  CHECK(summary["params"] == vocabulary * 2 + 2);
  CHECK(summary["selected"]["test_acc"].get<double>() == 100.0);  // great / awful decide every review
  CHECK_THAT(read_file(run / "spec.resolved.yaml"), Contains("kind: bow"));
}

TEST_CASE("model.kind bow, model.norm_placement and model.positions: their names, defaults and the records before",
          "[spec]") {
  const std::vector<std::string> kinds = {"auto", "vit", "text", "bow"};
  CHECK(find_key("model.kind")->choices == kinds);
  CHECK(find_key("model.norm_placement")->choices == names_of<NormPlacement>());
  CHECK(find_key("model.positions")->choices == names_of<Positions>());
  // A record written before the keys existed ran pre-norm with learned positions: their defaults.
  CHECK(find_key("model.norm_placement")->default_value == "pre");
  CHECK(find_key("model.positions")->default_value == "learned");
  CHECK(find_key("model.norm_placement")->when_absent.empty());
  CHECK(find_key("model.positions")->when_absent.empty());
  const ModelOptions defaults;
  CHECK(defaults.norm_placement == NormPlacement::Pre);
  CHECK(defaults.positions == Positions::Learned);
  Config config = Config::defaults();
  config.set("model.kind", "bow", "t");
  config.set("model.norm_placement", "post", "t");
  config.set("model.positions", "sinusoidal", "t");
  resolve_settings(config, DatasetTraits{true, ""});
  const ModelOptions read = model_options(config);
  CHECK(read.kind == ModelKind::Bow);
  CHECK(read.norm_placement == NormPlacement::Post);
  CHECK(read.positions == Positions::Sinusoidal);
  CHECK_THROWS_WITH(config.set("model.positions", "fixed", "t"), Contains("expected one of learned | sinusoidal"));
}
