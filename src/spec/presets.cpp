#include "spec/presets.h"

#include "spec/attention_variant.h"

namespace repro {

const std::vector<Preset>& preset_table() {
  static const std::vector<Preset> table = {
      {"vit",
       "ViT baseline of the DGSA paper: vanilla attention, GELU MLP",
       {{"model.kind", "vit"}, {"model.attention.kind", "vanilla"}, {"model.ffn.kind", "mlp"}}},
      {"dgvit",
       "DGViT: M-DGSA attention with the residual from Q, SwiGLU feed-forward",
       {{"model.kind", "vit"}, {"model.attention.kind", "dgsa"}, {"model.ffn.kind", "swiglu"}}},
      {"transformer",
       "Transformer encoder baseline: vanilla attention, GELU MLP",
       {{"model.kind", "text"}, {"model.attention.kind", "vanilla"}, {"model.ffn.kind", "mlp"}}},
      {"diff_transformer",
       "DIFF Transformer encoder: differential attention, SwiGLU feed-forward",
       {{"model.kind", "text"}, {"model.attention.kind", "diff"}, {"model.ffn.kind", "swiglu"}}},
      {"dgt",
       "DGT: M-DGSA attention without the residual from Q, SwiGLU feed-forward",
       {{"model.kind", "text"}, {"model.attention.kind", "dgsa"}, {"model.ffn.kind", "swiglu"}}},
  };
  return table;
}

void resolve_settings(Config& config, const DatasetTraits& dataset) {
  const std::string preset = config.text("model.preset");
  for (const auto& entry : preset_table()) {
    if (preset != entry.name) continue;
    for (const auto& [key, value] : entry.values)
      if (!config.is_explicit(key)) config.set_implied(key, value);
  }
  if (config.text("model.kind") == "auto") config.set_implied("model.kind", dataset.text ? "text" : "vit");
  const bool vision = config.text("model.kind") == "vit";
  if (config.text("model.pool") == "auto") config.set_implied("model.pool", vision ? "cls" : "mean");
  // The chosen attention variant's own "auto" keys (q_residual, lambda_schedule: its file declares the rule).
  if (const AttentionVariant* variant = find_attention_variant(config.text("model.attention.kind")))
    variant->resolve_auto(config, vision);
  if (config.text("data.val_fraction") == "auto") config.set_implied("data.val_fraction", dataset.text ? "0.2" : "0");
  if (config.text("data.augment") == "auto" && !dataset.default_augment.empty())
    config.set_implied("data.augment", dataset.default_augment);
}

}  // namespace repro
