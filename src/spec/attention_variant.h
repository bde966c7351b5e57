#pragma once
// An attention variant as spec/ knows it: its name (a model.attention.kind value), its keys
// bound to the members of its own settings struct, how its "auto" keys resolve, and the
// values of its keys that the other variants refuse.
//
// Each variant declares one beside its module, in src/models/attention/<name>.cpp
// (llama.cpp's locality: an architecture's hyper-parameters and its graph in one file):
//
//   struct FooOptions { double alpha = 0.5; };                                 // foo.h: the defaults
//   const AttentionVariant& foo_variant() {                                   // foo.cpp
//     static const AttentionVariant v = make_variant<FooOptions>("foo", "one line for repro list",
//         {key("model.attention.foo_alpha", &FooOptions::alpha, 0, 1, "foo: what alpha does.")});
//     return v;
//   }
//
// models/attention/registry.cpp lists the variants, and install_attention_variants() hands
// them to spec/ before any spec is read (src/main.cpp; the tests and the fuzz targets
// likewise). From then on spec/ treats those keys as every other key: the one key table
// (validation, `repro list`, docs/spec.md), "auto" resolution when the grid is expanded, and
// one conversion into typed options (AttentionOptions::settings) per run. The module
// receives its filled settings struct; nothing below spec/ reads a key.
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "spec/config.h"
#include "spec/key_binding.h"
#include "spec/keys.h"
#include "spec/options.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

// ---- a variant, its struct erased (its keys, typed on S: Key<S>, key(), auto_key(), on_off_by_modality(),
// keys_of_part() in spec/key_binding.h, shared with the run's own keys)

// Values of a key that only the owning variant accepts: any other chosen variant refuses them
// ("model.attention.gate_layers=2 applies to model.attention.kind=dgsa only (got diff)").
struct ValueClaim {
  std::string key;
  std::vector<std::string> values;  // the claimed texts; empty = every value but the key's default
  std::vector<std::pair<std::string, std::string>> note_for;  // (variant, a hint added to its refusal)
};

struct VariantKey {
  KeyDef def;
  std::function<void(const Config&, SettingsBox&)> read;
  std::function<std::string(const SettingsBox&)> text_of;  // the member's value as spec text
  AutoResolver resolve_auto;  // set: the default is "auto", resolved by this (spec/presets.cpp: resolve_settings)
};

struct AttentionVariant {
  std::string name;     // model.attention.kind
  std::string summary;  // one line for `repro list`
  std::vector<VariantKey> keys;
  std::vector<ValueClaim> claims;
  // The attention keys shared by several variants that this one reads (model.attention.qkv_bias); a variant that
  // does not list one refuses it when set, and its runs' spec.resolved.yaml leaves it out (spec/grid.h).
  std::vector<std::string> shared_keys_read;
  std::function<SettingsBox()> defaults;  // S{}

  // The settings struct from a validated, resolved Config.
  SettingsBox read(const Config& config) const;
};

template <class S>
AttentionVariant make_variant(std::string name, std::string summary, std::vector<Key<S>> keys,
                              std::vector<ValueClaim> claims = {}) {
  static_assert(std::is_copy_constructible_v<S>, "a variant's settings are a plain, copyable struct");
  AttentionVariant v;
  v.name = std::move(name);
  v.summary = std::move(summary);
  v.claims = std::move(claims);
  v.defaults = [] { return SettingsBox(S{}); };
  const S defaults{};
  for (Key<S>& k : keys) {
    VariantKey vk;
    vk.def = key_def(k, defaults);
    vk.resolve_auto = k.resolve_auto;
    vk.read = [read = std::move(k.read)](const Config& c, SettingsBox& s) { read(c, s.as<S>()); };
    vk.text_of = [text_of = k.text_of](const SettingsBox& s) { return text_of(s.as<S>()); };
    v.keys.push_back(std::move(vk));
  }
  return v;
}

// `variant` reading the shared attention keys `keys` (AttentionVariant::shared_keys_read).
inline AttentionVariant reading_shared_keys(AttentionVariant variant, std::vector<std::string> keys) {
  variant.shared_keys_read = std::move(keys);
  return variant;
}

// The shared attention keys: model.attention.* keys of the run's own table that some variants read and others
// do not (model.attention.qkv_bias; not model.attention.kind, which every run reads).
bool is_shared_attention_key(const std::string& key);

// ---- the installed variants

// Hands spec/ the variants, in the order of `repro list` and the key table; once, before any
// spec is read. A key two variants declare (a shared part) must be declared alike. Installing
// the same list again does nothing; another list throws.
void install_attention_variants(const std::vector<const AttentionVariant*>& variants);
// The installed variants; throws an internal error when none are installed.
const std::vector<const AttentionVariant*>& attention_variants();
// The variant named `name`, or nullptr.
const AttentionVariant* find_attention_variant(const std::string& name);
// Every installed variant's keys, each once, in installation order (spec/keys.cpp's table).
std::vector<KeyDef> attention_variant_keys();

// ---- typed access to AttentionOptions::settings (spec/options.h)

// The options of `variant` with its settings at their defaults (dim, heads and the rest as AttentionOptions{}).
AttentionOptions attention_defaults(const AttentionVariant& variant);
// The defaults of the installed variant named `name` (tests; throws naming the names installed).
AttentionOptions attention_defaults(const std::string& name);

}  // namespace repro
