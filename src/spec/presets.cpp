#include "spec/presets.h"

#include "spec/attention_variant.h"
#include "spec/run_keys.h"

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

bool AutoContext::vision() const { return config.text("model.kind") == "vit"; }

namespace {

// The key's "auto" replaced by what its binding resolves it to (`defaults`: its settings' defaults, for auto_key).
template <class K, class Settings>
void resolve_auto_key(Config& config, const DatasetTraits& dataset, const K& key, const Settings& defaults) {
  if (!key.resolve_auto || config.text(key.def.key) != "auto") return;
  const std::string value = key.resolve_auto(AutoContext{dataset, config, key.text_of(defaults)});
  if (!value.empty()) config.set_implied(key.def.key, value);
}

}  // namespace

void resolve_settings(Config& config, const DatasetTraits& dataset) {
  const std::string preset = config.text("model.preset");
  for (const auto& entry : preset_table()) {
    if (preset != entry.name) continue;
    for (const auto& [key, value] : entry.values)
      if (!config.is_explicit(key)) config.set_implied(key, value);
  }
  const RunOptions defaults{};
  for (const Key<RunOptions>& key : run_keys_before_attention()) resolve_auto_key(config, dataset, key, defaults);
  // The chosen attention variant's own keys (q_residual, lambda_schedule: its file binds them).
  if (const AttentionVariant* variant = find_attention_variant(config.text("model.attention.kind"))) {
    const SettingsBox variant_defaults = variant->defaults();
    for (const VariantKey& key : variant->keys) resolve_auto_key(config, dataset, key, variant_defaults);
  }
  for (const Key<RunOptions>& key : run_keys_after_attention()) resolve_auto_key(config, dataset, key, defaults);
}

}  // namespace repro
