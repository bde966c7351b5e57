#include "spec/attention_variant.h"

#include <algorithm>
#include <mutex>

namespace repro {

// ---- SettingsBox (spec/options.h)

void SettingsBox::wrong_type() const {
  throw Error(settings_.has_value() ? "internal: attention settings read as another variant's struct"
                                    : "internal: attention options without settings (use attention_defaults)");
}

const std::string& AttentionOptions::kind_name() const {
  if (!variant) throw Error("internal: attention options without a variant (use attention_defaults)");
  return variant->name;
}

// ---- one variant

SettingsBox AttentionVariant::read(const Config& config) const {
  SettingsBox settings = defaults();
  for (const VariantKey& key : keys) key.read(config, settings);
  return settings;
}

// ---- the installed variants

namespace {

struct Installed {
  std::vector<const AttentionVariant*> variants;
  bool done = false;
};

Installed& installed() {
  static Installed state;
  return state;
}

bool same_def(const KeyDef& a, const KeyDef& b) {
  return a.key == b.key && a.type == b.type && a.default_value == b.default_value && a.doc == b.doc && a.min == b.min &&
         a.max == b.max && a.choices == b.choices && a.auto_ok == b.auto_ok && a.when_absent == b.when_absent &&
         a.eval_may_override == b.eval_may_override && a.differs_by_design == b.differs_by_design;
}

// Every key once; a key declared by two variants (a shared part) must be declared alike.
std::vector<KeyDef> collect_keys(const std::vector<const AttentionVariant*>& variants) {
  std::vector<KeyDef> keys;
  for (const AttentionVariant* variant : variants)
    for (const VariantKey& key : variant->keys) {
      const auto seen = std::find_if(keys.begin(), keys.end(), [&](const KeyDef& k) { return k.key == key.def.key; });
      if (seen == keys.end())
        keys.push_back(key.def);
      else if (!same_def(*seen, key.def))
        throw Error("internal: attention variant '" + variant->name + "' declares key '" + key.def.key +
                    "' unlike an earlier variant (type, default, range, choices or doc differ)");
    }
  return keys;
}

}  // namespace

void install_attention_variants(const std::vector<const AttentionVariant*>& variants) {
  static std::mutex mutex;
  const std::lock_guard<std::mutex> lock(mutex);
  Installed& state = installed();
  if (state.done) {
    if (state.variants != variants) throw Error("internal: another list of attention variants is installed already");
    return;
  }
  if (variants.empty()) throw Error("internal: no attention variants to install");
  for (size_t i = 0; i < variants.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (variants[i]->name == variants[j]->name)
        throw Error("internal: two attention variants are named '" + variants[i]->name + "'");
  collect_keys(variants);  // checks the shared keys before anything reads them
  state.variants = variants;
  state.done = true;
}

const std::vector<const AttentionVariant*>& attention_variants() {
  const Installed& state = installed();
  if (!state.done)
    throw Error("internal: no attention variants installed (install_attention_variants before reading a spec)");
  return state.variants;
}

const AttentionVariant* find_attention_variant(const std::string& name) {
  for (const AttentionVariant* variant : attention_variants())
    if (variant->name == name) return variant;
  return nullptr;
}

std::vector<KeyDef> attention_variant_keys() { return collect_keys(attention_variants()); }

bool is_shared_attention_key(const std::string& key) {
  if (!starts_with(key, "model.attention.") || key == "model.attention.kind") return false;
  for (const AttentionVariant* variant : attention_variants())
    for (const auto& own : variant->keys)
      if (own.def.key == key) return false;
  return true;
}

AttentionOptions attention_defaults(const AttentionVariant& variant) {
  AttentionOptions options;
  options.variant = &variant;
  options.settings = variant.defaults();
  return options;
}

AttentionOptions attention_defaults(const std::string& name) {
  const AttentionVariant* variant = find_attention_variant(name);
  if (!variant) {
    std::vector<std::string> names;
    for (const AttentionVariant* v : attention_variants()) names.push_back(v->name);
    throw Error("attention variant '" + name + "': expected one of " + join(names, " | "));
  }
  return attention_defaults(*variant);
}

}  // namespace repro
