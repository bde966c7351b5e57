// ViT shapes and parameter counts (a hand count; DGViT against the DGSA paper's Table 5),
// weight-decay groups, presets, every variant in the text encoder, the feed-forward kinds,
// the registries, and the typed options: their defaults, that they carry every key's value,
// their enum names. That no code below spec/ reads a key by name is tests/test_layers.cpp's.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include "catch.h"
#include "data/fashion_mnist.h"
#include "fixtures.h"
#include "models/attention/dgsa.h"
#include "models/attention/gi.h"
#include "models/attention/plug.h"
#include "models/attention/registry.h"
#include "models/ffn/registry.h"
#include "models/model.h"
#include "models/param_count.h"
#include "probed.h"
#include "spec/attention_variant.h"
#include "spec/config.h"
#include "spec/keys.h"
#include "spec/options.h"
#include "spec/presets.h"

using namespace repro;

namespace {

// A ViT of width 16, 2 blocks of 2 heads (vanilla), patch 7, feed-forward x2.
ModelOptions tiny_options() {
  ModelOptions o;
  o.attention = attention_defaults("vanilla");
  o.dim = 16;
  o.heads = 2;
  o.depth = 2;
  o.patch = 7;
  o.ffn.ratio = 2;
  return o;
}

DatasetInfo text_info();

}  // namespace

TEST_CASE("ViT maps images to logits and returns one map per block", "[model]") {
  torch::manual_seed(0);
  const auto model = build_model(tiny_options(), fashion_mnist_info());
  std::vector<torch::Tensor> maps;
  model->eval();
  const auto logits = test::forward_probed(*model, {torch::randn({3, 1, 28, 28}), {}}, maps);
  CHECK(logits.sizes() == torch::IntArrayRef({3, 10}));
  REQUIRE(maps.size() == 2);
  CHECK(maps[0].sizes() == torch::IntArrayRef({3, 2, 17, 17}));  // 16 patches + class token
  CHECK(torch::allclose(maps[0].sum(-1), torch::ones({3, 2, 17})));
}

TEST_CASE("ViT parameter count equals the hand count", "[model]") {
  const auto model = build_model(tiny_options(), fashion_mnist_info());
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

TEST_CASE("weight decay, the paper's reading: all but biases and norm weights", "[model]") {
  // A DIFF Transformer text encoder with RMSNorm blocks: LayerNorm/RMSNorm weights, the heads' RMSNorm,
  // biases, token embeddings, positions and the per-head lambda vectors all present.
  ModelOptions o = tiny_options();
  o.kind = ModelKind::Text;
  o.pool = Pool::Mean;
  o.norm = NormKind::RmsNorm;
  o.attention = attention_defaults("diff");
  const auto model = build_model(o, text_info());
  const auto decays = decayed_parameters(*model, NoDecay::Paper);
  CHECK(decays.size() == model->named_parameters().size());
  const std::regex norm_weight(R"((^|\.)(norm[0-9]*|head_norm)\.weight$)");
  for (const auto& item : model->named_parameters()) {
    const std::string& name = item.key();
    const bool bias = name.size() > 5 && name.substr(name.size() - 5) == ".bias";
    INFO(name);
    CHECK(decays.at(name) == !(bias || std::regex_search(name, norm_weight)));
  }
  CHECK(decays.at("token_embed.weight"));
  CHECK(decays.at("pos_embed"));
  CHECK(decays.at("blocks.0.attn.lambda_q1"));
  CHECK_FALSE(decays.at("blocks.0.attn.head_norm.weight"));
  CHECK_FALSE(decays.at("blocks.0.norm1.weight"));
  CHECK_FALSE(decays.at("head.bias"));
  // A ViT with LayerNorm: the class token and the patch convolution decay, LayerNorm's weight and bias not.
  const auto vit = decayed_parameters(*build_model(tiny_options(), fashion_mnist_info()), NoDecay::Paper);
  CHECK(vit.at("cls_token"));
  CHECK(vit.at("patch_embed.weight"));
  CHECK_FALSE(vit.at("blocks.1.norm2.weight"));
  CHECK_FALSE(vit.at("blocks.1.norm2.bias"));
  CHECK_FALSE(vit.at("norm.weight"));
}

TEST_CASE("weight decay, the earlier reading: matrices only, not embeddings, class token or positions", "[model]") {
  const auto model = build_model(tiny_options(), fashion_mnist_info());
  const auto decays = decayed_parameters(*model, NoDecay::VectorsEmbeddings);
  for (const auto& item : model->named_parameters()) {
    const std::string& name = item.key();
    const bool expected = item.value().dim() >= 2 && name != "cls_token" && name != "pos_embed";
    INFO(name);
    CHECK(decays.at(name) == expected);
  }
  CHECK(decays.at("patch_embed.weight"));
  CHECK(decays.at("blocks.0.attn.qkv.weight"));
  ModelOptions o = tiny_options();
  o.kind = ModelKind::Text;
  o.pool = Pool::Mean;
  const auto text = decayed_parameters(*build_model(o, text_info()), NoDecay::VectorsEmbeddings);
  CHECK_FALSE(text.at("token_embed.weight"));
  CHECK_FALSE(text.at("pos_embed"));
}

namespace {

DatasetInfo image_info(int64_t channels, int64_t side, int64_t classes) {
  DatasetInfo info;
  info.name = "images";
  info.modality = Modality::Image;
  info.channels = channels;
  info.height = info.width = side;
  info.num_classes = classes;
  return info;
}

DatasetInfo text_info() { return test::tiny_text_info(/*max_length=*/12); }

// DGViT of the DGSA paper's Table 3 (dim 256, 8 layers, 8 heads, patch 4, max
// sequence length 100) with SwiGLU expansion `ratio`.
int64_t dgvit_params(double ratio, const DatasetInfo& info) {
  Config config = Config::defaults();
  config.set("model.preset", "dgvit", "t");
  config.set("model.max_len", "100", "t");
  config.set("model.ffn.ratio", std::to_string(ratio), "t");
  resolve_settings(config, info.traits());
  return count_parameters(*build_model(model_options(config), info)).total;
}

}  // namespace

TEST_CASE("DGViT parameter counts are within 1% of the DGSA paper's Table 5", "[model]") {
  const auto cifar10 = image_info(3, 32, 10), cifar100 = image_info(3, 32, 100), fashion = image_info(1, 28, 10);
  const struct {
    double ratio;
    DatasetInfo info;
    double paper;
  } cells[] = {{2, cifar10, 3.77e6},  {4, cifar10, 5.35e6}, {2, cifar100, 3.8e6},
               {4, cifar100, 5.36e6}, {2, fashion, 3.77e6}, {4, fashion, 5.35e6}};
  for (const auto& cell : cells) {
    const int64_t ours = dgvit_params(cell.ratio, cell.info);
    INFO("x" << cell.ratio << " " << cell.info.num_classes << " classes, " << cell.info.channels << " channels: ours "
             << ours << ", paper " << cell.paper);
    CHECK(std::abs(static_cast<double>(ours) - cell.paper) / cell.paper < 0.01);
  }
  // The x4 - x2 difference the SwiGLU reading is chosen for: 1.58M in the paper.
  CHECK(dgvit_params(4, cifar10) - dgvit_params(2, cifar10) ==
        8 * (256 * 1024 + 1024 + 512 * 256 + 256 - (256 * 512 + 512 + 256 * 256 + 256)));
}

TEST_CASE("presets fill only what the spec leaves unset and resolve auto", "[model]") {
  const DatasetInfo text = text_info();
  Config config = Config::defaults();
  config.set("model.preset", "dgt", "t");
  config.set("model.ffn.kind", "mlp", "t");
  resolve_settings(config, text.traits());
  CHECK(config.text("model.kind") == "text");
  CHECK(config.text("model.attention.kind") == "dgsa");
  CHECK(config.text("model.ffn.kind") == "mlp");  // set explicitly: kept
  CHECK(config.text("model.attention.q_residual") == "off");
  CHECK(config.text("model.pool") == "mean");
  CHECK(config.text("model.attention.lambda_schedule") == "fixed");
  Config vit = Config::defaults();
  vit.set("model.preset", "dgvit", "t");
  resolve_settings(vit, image_info(1, 28, 10).traits());
  CHECK(vit.text("model.attention.q_residual") == "on");
  CHECK(vit.text("model.pool") == "cls");
}

TEST_CASE("every variant runs in the text encoder with padding", "[model]") {
  const DatasetInfo text = text_info();
  for (const auto& entry : attention_table()) {
    INFO(entry.variant->name);
    ModelOptions o = tiny_options();
    o.kind = ModelKind::Text;
    o.pool = Pool::Mean;
    o.attention = attention_defaults(*entry.variant);
    o.ffn.kind = FfnKind::Swiglu;
    torch::manual_seed(0);
    auto model = build_model(o, text);
    model->eval();
    auto ids = torch::randint(1, 50, {2, 9}, torch::kInt64);
    ids.index_put_({1, torch::indexing::Slice(6, 9)}, 0);  // padding
    const auto logits = model->forward({ids, {}});
    CHECK(logits.sizes() == torch::IntArrayRef({2, 3}));
    // Three more padding tokens at the end change nothing.
    const auto longer = torch::cat({ids, torch::zeros({2, 3}, torch::kInt64)}, 1);
    CHECK(torch::allclose(model->forward({longer, {}}), logits, 1e-5, 1e-5));
  }
}

TEST_CASE("every feed-forward kind keeps the shape; SwiGLU splits e*D into halves", "[model]") {
  for (const auto& [kind, name] : enum_names(FfnKind{})) {
    INFO(name);
    ModelOptions o = tiny_options();
    o.ffn.kind = kind;
    o.ffn.ratio = 4;
    const auto model = build_model(o, fashion_mnist_info());
    CHECK(model->forward({torch::randn({2, 1, 28, 28}), {}}).sizes() == torch::IntArrayRef({2, 10}));
    if (kind == FfnKind::Swiglu)
      CHECK(count_parameters(*model).parts[2].second == 2 * ((16 * 64 + 64) + (32 * 16 + 16)));
  }
}

TEST_CASE("every attention and feed-forward kind has exactly one registry entry", "[model]") {
  // The attention registry's own checks are in test_attention.cpp; here each entry builds.
  for (const auto& entry : attention_table()) {
    INFO(entry.variant->name);
    ModelOptions o;
    o.attention = attention_defaults(*entry.variant);
    o.dim = 16;
    o.heads = 2;
    CHECK(make_attention(o, 0)->forward(torch::randn({1, 3, 16}), {}).sizes() == torch::IntArrayRef({1, 3, 16}));
  }
  CHECK_THROWS_WITH(make_attention(ModelOptions{}, 0), test::Contains("without a variant"));
  for (const auto& [kind, name] : enum_names(FfnKind{})) {
    INFO(name);
    CHECK(std::count_if(ffn_table().begin(), ffn_table().end(),
                        [kind = kind](const FeedForwardEntry& e) { return e.kind == kind; }) == 1);
  }
  CHECK(ffn_table().size() == enum_names(FfnKind{}).size());
}

// The run's own keys: tests/test_keys.cpp.
TEST_CASE("each variant's settings struct holds its keys' defaults, and its auto keys resolve to them for a ViT",
          "[spec]") {
  // Each variant's settings struct: its members' defaults are the key table's defaults (make_variant
  // builds the table's defaults from them), and its "auto" keys resolve, for a ViT, to what the members
  // hold (q_residual on, lambda_schedule depth for diff and fixed for dgsa).
  for (const AttentionVariant* variant : attention_variants()) {
    INFO(variant->name);
    Config resolved = Config::defaults();
    resolved.set("model.attention.kind", variant->name, "t");
    resolve_settings(resolved, fashion_mnist_info().traits());
    const AttentionOptions read = model_options(resolved).attention;
    const SettingsBox defaults = variant->defaults();
    for (const VariantKey& key : variant->keys) {
      INFO(key.def.key);
      CHECK(key.text_of(read.settings) == resolved.text(key.def.key));
      CHECK(key.text_of(defaults) == resolved.text(key.def.key));
    }
  }
}

TEST_CASE("options carry every key's value; an unresolved auto is refused", "[spec]") {
  Config config = Config::defaults();
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"model.kind", "text"},
                                                        {"model.pool", "mean"},
                                                        {"model.norm", "rmsnorm"},
                                                        {"model.attention.kind", "dgsa"},
                                                        {"model.attention.q_residual", "off"},
                                                        {"model.attention.lambda_schedule", "depth"},
                                                        {"model.attention.diff_heads", "2"},
                                                        {"model.attention.gate_bias_init", "1.5"},
                                                        {"model.attention.plug_gml", "D"},
                                                        {"model.attention.plug_activation", "hardtanh"},
                                                        {"model.attention.plug_position", "post"},
                                                        {"model.attention.plug_fraction", "0.5"},
                                                        {"model.attention.gi_combine", "additive"},
                                                        {"model.attention.gi_max", "token"},
                                                        {"model.attention.inh_p", "0.3"},
                                                        {"model.ffn.kind", "gimlp"},
                                                        {"train.lr", "0.002"},
                                                        {"train.betas", "[0.8, 0.95]"},
                                                        {"train.schedule", "linear"},
                                                        {"train.schedule_unit", "epoch"},
                                                        {"train.precision", "bf16"},
                                                        {"train.select", "last"}})
    config.set(key, value, "t");
  const ModelOptions m = model_options(config);
  CHECK(m.kind == ModelKind::Text);
  CHECK(m.pool == Pool::Mean);
  CHECK(m.norm == NormKind::RmsNorm);
  CHECK(m.attention.kind_name() == "dgsa");
  const auto& dgsa = m.attention.settings.as<DgsaOptions>();
  CHECK_FALSE(dgsa.q_residual);
  CHECK(dgsa.layout.lambda_schedule == LambdaSchedule::Depth);
  CHECK(dgsa.layout.heads == 2);
  CHECK(dgsa.gate_bias_init == 1.5);
  CHECK_THROWS_WITH(m.attention.settings.as<PlugOptions>(), test::Contains("another variant's struct"));
  CHECK(m.ffn.kind == FfnKind::Gimlp);
  // Only the chosen variant's keys are read: the plug and gi settings above reach their variants.
  config.set("model.attention.kind", "plug", "t");
  const auto plug = model_options(config).attention.settings.as<PlugOptions>();
  CHECK(plug.gml == PlugGml::D);
  CHECK(plug.activation == PlugActivation::Hardtanh);
  CHECK(plug.position == PlugPosition::Post);
  CHECK(plug.fraction == 0.5);
  config.set("model.attention.kind", "gi", "t");
  const auto gi = model_options(config).attention.settings.as<GiOptions>();
  CHECK(gi.combine == GiCombine::Additive);
  CHECK(gi.max == GiMax::Token);
  CHECK(gi.inh_p == 0.3);
  const TrainOptions t = train_options(config);
  CHECK(t.schedule.lr == 0.002);
  CHECK(t.optimizer.beta1 == 0.8);
  CHECK(t.optimizer.beta2 == 0.95);
  CHECK(t.schedule.kind == ScheduleKind::Linear);
  CHECK(t.schedule.unit == ScheduleUnit::Epoch);
  CHECK(t.precision == PrecisionChoice::Bf16);
  CHECK(t.select == SelectRule::Last);

  using repro::test::Contains;
  CHECK_THROWS_WITH(model_options(Config::defaults()), Contains("'model.kind' is still auto"));
  config.set("model.attention.kind", "dgsa", "t");
  config.set("model.attention.q_residual", "auto", "t");
  CHECK_THROWS_WITH(model_options(config), Contains("'model.attention.q_residual' is still auto"));
  config.set("model.attention.kind", "vanilla", "t");  // q_residual is dgsa's: unused here
  CHECK_NOTHROW(model_options(config));
}

TEST_CASE("enum names: one table each, the key table's choices", "[spec]") {
  CHECK(enum_from_name<PlugGml>("C", "k") == PlugGml::C);
  CHECK_THROWS_WITH(enum_from_name<GiMax>("tokens", "model.attention.gi_max"),
                    "model.attention.gi_max: got 'tokens', expected one of batch | token");
  std::vector<std::string> variants;
  for (const auto& entry : attention_table()) variants.push_back(entry.variant->name);
  CHECK(find_key("model.attention.kind")->choices == variants);
  CHECK(find_key("model.ffn.kind")->choices == names_of<FfnKind>());
  CHECK(find_key("train.schedule")->choices == names_of<ScheduleKind>());
  CHECK(find_key("train.precision")->choices == names_of<PrecisionChoice>());
  const std::vector<std::string> pool = {"auto", "cls", "mean"};
  CHECK(find_key("model.pool")->choices == pool);
}

namespace {

using Settings = std::vector<std::pair<std::string, std::string>>;

// The settings of one variant that change its parameters (each list a configuration of its own).
std::vector<Settings> variant_settings(const std::string& variant) {
  if (variant == "diff")
    return {{}, {{"model.attention.diff_heads", "1"}}, {{"model.attention.lambda_schedule", "fixed"}}};
  if (variant == "dgsa")
    return {{},
            {{"model.attention.gate_layers", "2"}},
            {{"model.attention.lambda_schedule", "learnable"}},
            {{"model.attention.diff_heads", "4"}, {"model.attention.gate_layers", "2"}}};
  if (variant == "plug") {
    std::vector<Settings> out;
    for (const char* gml : {"A", "B", "C", "D", "E"}) out.push_back({{"model.attention.plug_gml", gml}});
    out.push_back({{"model.attention.plug_head_specific", "true"}, {"model.attention.plug_fraction", "0.5"}});
    out.push_back({{"model.attention.plug_gml", "D"}, {"model.attention.plug_hidden", "7"}});
    return out;
  }
  return {{}};
}

// The options of `settings` for a dataset: a small model, every "auto" resolved as a run resolves it.
ModelOptions counted_options(const Settings& settings, const DatasetInfo& info) {
  Config config = Config::defaults();
  for (const auto& [key, value] :
       Settings{{"model.dim", "16"}, {"model.heads", "4"}, {"model.depth", "2"}, {"model.patch", "4"}})
    config.set(key, value, "t");
  for (const auto& [key, value] : settings) config.set(key, value, "t");
  resolve_settings(config, info.traits());
  return model_options(config);
}

}  // namespace

TEST_CASE(
    "parameters counted from the options equal the built model's, part by part, for every variant, "
    "feed-forward kind and model kind",
    "[model]") {
  DatasetInfo text = text_info();
  text.max_length = 9;
  const std::vector<std::pair<DatasetInfo, Settings>> models = {
      {fashion_mnist_info(), {}},                                                      // ViT, one channel, 28 x 28
      {image_info(3, 32, 100), {{"model.max_len", "80"}, {"model.norm", "rmsnorm"}}},  // more positions than patches
      {text, {{"model.kind", "text"}}},
      {text, {{"model.kind", "text"}, {"model.max_len", "30"}, {"model.attention.qkv_bias", "false"}}},
      {text, {{"model.kind", "text"}, {"model.positions", "sinusoidal"}, {"model.norm_placement", "post"}}},
      {text, {{"model.kind", "bow"}}}};  // the head only, whatever the attention
  int compared = 0;
  for (const auto& entry : attention_table())
    for (const auto& own : variant_settings(entry.variant->name))
      for (const char* ffn : {"mlp", "swiglu", "gimlp"})
        for (const auto& [info, model_settings] : models) {
          Settings settings = model_settings;
          settings.insert(settings.end(), own.begin(), own.end());
          settings.push_back({"model.attention.kind", entry.variant->name});
          settings.push_back({"model.ffn.kind", ffn});
          settings.push_back({"model.ffn.ratio", "16/3"});  // e*D rounded: 85 (mlp, gimlp), 2 x 43 (swiglu)
          std::string described;
          for (const auto& [key, value] : settings) described += key + "=" + value + " ";
          INFO(described << "on " << info.name);
          const ModelOptions options = counted_options(settings, info);
          const ParamBreakdown built = count_parameters(*build_model(options, info));
          const ParamBreakdown counted = count_parameters(options, info);
          CHECK(counted.total == built.total);
          CHECK(counted.parts == built.parts);
          ++compared;
        }
  CHECK(compared >= 5 * 3 * 4);
  // What cannot be built cannot be counted either, with build_model's message.
  const ModelOptions odd =
      counted_options({{"model.attention.kind", "diff"}, {"model.attention.diff_heads", "3"}}, fashion_mnist_info());
  CHECK_THROWS_WITH(count_parameters(odd, fashion_mnist_info()), test::Contains("divisible by 2h=6"));
  CHECK_THROWS_WITH(build_model(odd, fashion_mnist_info()), test::Contains("divisible by 2h=6"));
  const ModelOptions text_on_images = counted_options({{"model.kind", "text"}}, text);
  CHECK_THROWS_WITH(count_parameters(text_on_images, fashion_mnist_info()), test::Contains("needs a text dataset"));
  // The training state: float32 weights, gradients and AdamW's two moments.
  CHECK(training_state_bytes(1000) == 16000);
}
