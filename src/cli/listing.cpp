#include "cli/listing.h"

#include "data/dataset.h"
#include "data/registry.h"
#include "models/attention/registry.h"
#include "models/ffn/registry.h"
#include "models/model.h"
#include "spec/attention_variant.h"
#include "spec/grid.h"
#include "spec/keys.h"
#include "spec/presets.h"
#include "util/strings.h"

namespace repro {

namespace {

std::string pad(const std::string& text, size_t width) {
  return text.size() >= width ? text + " " : text + std::string(width - text.size(), ' ');
}

// A markdown table cell: '|' would end the cell, so it is escaped.
std::string table_cell(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

// The key's doc, and who reads it where not every run does (spec/grid.h: readers_text, from the registry).
std::string key_doc(const KeyDef& def) {
  const std::string readers = readers_text(def.key);
  return readers.empty() ? def.doc : def.doc + " (" + readers + ")";
}

// "`blocks.i.attn.qkv.weight` (144, 48)" for each parameter and buffer of `model` whose name starts with `prefix`
// (and does not start with `skip`, when given), block 0's written as block i's.
std::string names_of(const torch::nn::Module& model, const std::string& prefix, const std::string& skip = "") {
  std::vector<std::string> names;
  const auto add = [&](const std::string& name, const torch::Tensor& tensor) {
    if (!starts_with(name, prefix) || (!skip.empty() && starts_with(name, skip))) return;
    std::string shown = starts_with(name, "blocks.0.") ? "blocks.i." + name.substr(9) : name;
    std::vector<std::string> sizes;
    for (const auto size : tensor.sizes()) sizes.push_back(std::to_string(size));
    names.push_back("`" + shown + "` (" + (sizes.empty() ? std::string("scalar") : join(sizes, ", ")) + ")");
  };
  for (const auto& item : model.named_parameters()) add(item.key(), item.value());
  for (const auto& item : model.named_buffers()) add(item.key(), item.value());
  return join(names, ", ");
}

ClassifierPtr model_of(ModelKind kind, const std::string& attention, FfnKind ffn) {
  ModelOptions o;
  o.kind = kind;
  o.attention = attention_defaults(attention);
  o.dim = 48, o.heads = 4, o.depth = 1, o.patch = 7, o.ffn.kind = ffn, o.ffn.ratio = 2;
  DatasetInfo info;
  info.num_classes = 10;
  if (kind == ModelKind::Vit) {
    info.modality = Modality::Image, info.channels = 1, info.height = 28, info.width = 28;
  } else {
    info.modality = Modality::Text, info.vocab_size = 100, info.max_length = 16, info.first_word = 3;
  }
  return build_model(o, info);
}

}  // namespace

std::string parameter_names_markdown() {
  const auto vit = model_of(ModelKind::Vit, "vanilla", FfnKind::Mlp);
  const auto text = model_of(ModelKind::Text, "vanilla", FfnKind::Mlp);
  std::string out =
      "| part | names and shapes at D = 48, 4 heads, a 28 x 28 image of 1 channel (patch 7), 10 classes, "
      "100 token ids |\n|---|---|\n";
  out += "| ViT, outside the blocks | " + names_of(*vit, "", "blocks.") + " |\n";
  out += "| text encoder, outside the blocks | " + names_of(*text, "", "blocks.") + " |\n";
  out += "| block norms | " + names_of(*vit, "blocks.0.norm") + " |\n";
  for (const auto& e : attention_table()) {
    const auto model = model_of(ModelKind::Vit, e.variant->name, FfnKind::Mlp);
    out += "| `" + e.variant->name + "` | " + names_of(*model, "blocks.0.attn.") + " |\n";
  }
  for (const auto& e : ffn_table()) {
    const auto model = model_of(ModelKind::Vit, "vanilla", e.kind);
    out += "| `" + name_of(e.kind) + "` | " + names_of(*model, "blocks.0.ffn.") + " |\n";
  }
  const auto bow = model_of(ModelKind::Bow, "vanilla", FfnKind::Mlp);
  out += "| `bow` | " + names_of(*bow, "") + " |\n";
  return out;
}

std::string kinds_markdown() {
  const auto quoted = [](const std::vector<std::string>& names) {
    std::vector<std::string> out;
    for (const auto& name : names) out.push_back("`" + name + "`");
    return join(out, ", ");
  };
  std::vector<std::string> variants, ffns, kinds, presets;
  for (const auto& e : attention_table()) variants.push_back(e.variant->name);
  for (const auto& e : ffn_table()) ffns.push_back(name_of(e.kind));
  for (const auto& e : model_kind_table()) kinds.push_back(name_of(e.kind));
  for (const auto& p : preset_table()) presets.push_back(p.name);
  return std::to_string(variants.size()) + " attention variants, one file each under `src/models/attention/`: " +
         quoted(variants) + "; " + std::to_string(ffns.size()) + " feed-forward kinds: " + quoted(ffns) + "; " +
         std::to_string(kinds.size()) + " model kinds: " + quoted(kinds) + "; " + std::to_string(presets.size()) +
         " presets: " + quoted(presets) + " (`repro list` says what each is).\n";
}

namespace {

// "60000 train / 10000 test"; a dataset without an official split (Rotten Tomatoes) "10662 examples, no official
// split: split at load": repro cuts its test and validation sets (docs/data.md).
std::string official_splits(const DatasetInfo& info, const char* between) {
  if (info.official_test == 0)
    return std::to_string(info.official_train) + " examples, no official split: split at load";
  return std::to_string(info.official_train) + between + std::to_string(info.official_test);
}

}  // namespace

std::string listing_text() {
  std::string out = "Model kinds (model.kind):\n";
  for (const auto& e : model_kind_table()) out += "  " + pad(name_of(e.kind), 12) + e.summary + "\n";
  out += "\nAttention variants (model.attention.kind):\n";
  for (const auto& e : attention_table()) out += "  " + pad(e.variant->name, 12) + e.variant->summary + "\n";
  out += "\nFeed-forward kinds (model.ffn.kind):\n";
  for (const auto& e : ffn_table()) out += "  " + pad(name_of(e.kind), 12) + e.summary + "\n";
  out += "\nPresets (model.preset):\n";
  for (const auto& p : preset_table()) out += "  " + pad(p.name, 18) + p.description + "\n";
  out += "\nDatasets (datasets: [...]):\n";
  for (const auto& e : dataset_table()) {
    const DatasetInfo info = e.info();
    out += "  " + pad(e.name, 16) + name_of(info.modality) + ", " + std::to_string(info.num_classes) + " classes, " +
           (info.official_test == 0 ? official_splits(info, "") : official_splits(info, " train / ") + " test") + "\n";
  }
  out += "\nSpec keys (KEY: type = default; doc):\n";
  for (const auto& def : spec_keys())
    out += "  " + def.key + ": " + type_name(def) + " = " + def.default_value + "\n      " + key_doc(def) + "\n";
  return out;
}

std::string spec_markdown() {
  std::string out =
      "# Spec keys\n\n"
      "Generated by `repro list --format md` from the same table the parser validates against; "
      "a test keeps this file equal to that output.\n\n"
      "A spec file has the top-level keys `experiment` (name; default: the file name), `description`, "
      "`datasets` (list), `seeds` (list or range such as `0-4`; a bare number such as `3` is refused: write `[3]` for "
      "seed 3 or `0-2` for three seeds), `model`, `data`, `text` and `train` (the base "
      "settings "
      "below, nested or dotted), `models` (the table rows: a list of `{name, model/data/text/train overrides}`) and "
      "`sweep` (KEY: [values], a grid axis), `per_dataset` (DATASET: settings that apply only to runs on that "
      "dataset, e.g. a text length per corpus) and `profiles` (NAME: a budget overlay chosen with `--profile NAME`: "
      "settings, and optionally `datasets` and `seeds` that replace the spec's), and `report` (`{baseline: ROW}`: "
      "the row `repro report --stats` compares the others with; not part of any run's spec). Settings apply in the "
      "order "
      "defaults < base < row < sweep value < per_dataset < profile < command-line `key=value`; `auto` values are "
      "resolved last, from the dataset.\n\n"
      "| key | type | default | meaning |\n|---|---|---|---|\n";
  for (const auto& def : spec_keys())
    out += "| `" + def.key + "` | " + table_cell(type_name(def)) + " | `" + def.default_value + "` | " +
           table_cell(key_doc(def)) + " |\n";
  out += "\n## Model kinds\n\n";
  for (const auto& e : model_kind_table()) out += "- `" + name_of(e.kind) + "`: " + e.summary + "\n";
  out += "\n## Attention variants\n\n";
  for (const auto& e : attention_table()) out += "- `" + e.variant->name + "`: " + e.variant->summary + "\n";
  out += "\n## Feed-forward kinds\n\n";
  for (const auto& e : ffn_table()) out += "- `" + name_of(e.kind) + "`: " + e.summary + "\n";
  out += "\n## Presets\n\n";
  for (const auto& p : preset_table()) {
    out += "- `" + std::string(p.name) + "`: " + p.description + " (";
    for (size_t i = 0; i < p.values.size(); ++i)
      out += std::string(i ? ", " : "") + "`" + p.values[i].first + ": " + p.values[i].second + "`";
    out += ")\n";
  }
  out += "\n## Datasets\n\n";
  for (const auto& e : dataset_table()) {
    const DatasetInfo info = e.info();
    out += "- `" + std::string(e.name) + "`: " + name_of(info.modality) + ", " + std::to_string(info.num_classes) +
           " classes, " + (info.official_test == 0 ? "" : "official splits ") + official_splits(info, " / ") +
           "; files in `datasets/" + e.name + ".yaml`\n";
  }
  return out;
}

}  // namespace repro
