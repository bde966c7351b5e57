#pragma once
// An attention variant as spec/ knows it: its name (a model.attention.kind value), its keys
// bound to the members of its own settings struct, how its "auto" keys resolve, and the
// values of its keys that the other variants refuse.
//
// Each variant declares one beside its module, in src/models/attention/<name>.cpp
// (llama.cpp's locality: an architecture's hyper-parameters and its graph in one file):
//
//   struct FooOptions : SettingsOf<FooOptions> { double alpha = 0.5; };        // foo.h: the defaults
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
#include "spec/keys.h"
#include "spec/options.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

// ---- a variant's settings struct

// The base of every variant's settings struct (derive through SettingsOf).
struct VariantSettings {
  virtual ~VariantSettings() = default;
  virtual std::unique_ptr<VariantSettings> clone() const = 0;
};

template <class S>
struct SettingsOf : VariantSettings {
  std::unique_ptr<VariantSettings> clone() const override { return std::make_unique<S>(static_cast<const S&>(*this)); }
};

// ---- one key of a variant, typed on the struct S it fills

enum class AutoRule {
  None,            // the key's default is the member's default in S{}
  VariantDefault,  // default "auto", resolved to the chosen variant's S{} value (lambda_schedule: depth for diff)
  ByModality,      // default "auto" (auto | on | off), resolved by the model kind (q_residual: on in vit)
};

template <class S>
struct Key {
  KeyDef def;                                    // its default_value is filled by make_variant
  std::function<void(const Config&, S&)> read;   // the checked, resolved value into the member
  std::function<std::string(const S&)> text_of;  // the member's value as spec text
  AutoRule auto_rule = AutoRule::None;
  std::string vision_value, text_value;  // ByModality: what auto becomes for vit / text
};

namespace variant_detail {

constexpr double kInf = std::numeric_limits<double>::infinity();

[[noreturn]] inline void still_auto(const std::string& key) {
  throw Error("internal: spec key '" + key + "' is still auto (resolve the settings first)");
}

inline const std::string& resolved_text(const Config& c, const std::string& key) {
  const std::string& value = c.text(key);
  if (value == "auto") still_auto(key);
  return value;
}

template <class T>
std::string text_of_value(const T& value) {
  if constexpr (std::is_same_v<T, bool>)
    return value ? "true" : "false";
  else if constexpr (std::is_enum_v<T>)
    return name_of(value);
  else if constexpr (std::is_integral_v<T>)
    return std::to_string(value);
  else
    return format_number(value);
}

template <class T>
T value_of_text(const Config& c, const std::string& key) {
  const std::string& text = resolved_text(c, key);
  if constexpr (std::is_same_v<T, bool>)
    return text == "true";
  else if constexpr (std::is_enum_v<T>)
    return enum_from_name<T>(text, "internal: spec key '" + key + "'");
  else if constexpr (std::is_integral_v<T>)
    return static_cast<T>(c.integer(key));
  else
    return static_cast<T>(c.real(key));
}

template <class T>
ValueType value_type() {
  if constexpr (std::is_same_v<T, bool>)
    return ValueType::Bool;
  else if constexpr (std::is_enum_v<T>)
    return ValueType::Enum;
  else if constexpr (std::is_integral_v<T>)
    return ValueType::Int;
  else
    return ValueType::Float;
}

template <class S, class T>
Key<S> bound(std::string name, T S::*member, double lo, double hi, std::string doc) {
  Key<S> k;
  k.def = KeyDef{name, value_type<T>(), "", std::move(doc), lo, hi, {}};
  if constexpr (std::is_enum_v<T>) k.def.choices = names_of<T>();
  k.read = [name, member](const Config& c, S& s) { s.*member = value_of_text<T>(c, name); };
  k.text_of = [member](const S& s) { return text_of_value(s.*member); };
  return k;
}

}  // namespace variant_detail

// A number (int64_t or double member) in [lo, hi].
template <class S, class T, std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, bool>, int> = 0>
Key<S> key(std::string name, T S::*member, double lo, double hi, std::string doc) {
  return variant_detail::bound(std::move(name), member, lo, hi, std::move(doc));
}

// A flag (bool member) or a choice among an enum's names (enum member; its names table: enum_names(E)).
template <class S, class T, std::enable_if_t<std::is_same_v<T, bool> || std::is_enum_v<T>, int> = 0>
Key<S> key(std::string name, T S::*member, std::string doc) {
  return variant_detail::bound(std::move(name), member, -variant_detail::kInf, variant_detail::kInf, std::move(doc));
}

// A choice whose default is "auto": the chosen variant's own default for the member (its S{}).
template <class S, class E>
Key<S> auto_key(std::string name, E S::*member, std::string doc) {
  Key<S> k = key(std::move(name), member, std::move(doc));
  k.def.choices.insert(k.def.choices.begin(), "auto");
  k.auto_rule = AutoRule::VariantDefault;
  return k;
}

// auto | on | off into a bool member: auto resolves to `vision` in a vit, `text` in a text model.
template <class S>
Key<S> on_off_by_modality(std::string name, bool S::*member, bool vision, bool text, std::string doc) {
  Key<S> k;
  k.def = KeyDef{name,
                 ValueType::Enum,
                 "auto",
                 std::move(doc),
                 -variant_detail::kInf,
                 variant_detail::kInf,
                 {"auto", "on", "off"}};
  k.read = [name, member](const Config& c, S& s) { s.*member = variant_detail::resolved_text(c, name) == "on"; };
  k.text_of = [member](const S& s) { return std::string(s.*member ? "on" : "off"); };
  k.auto_rule = AutoRule::ByModality;
  k.vision_value = vision ? "on" : "off";
  k.text_value = text ? "on" : "off";
  return k;
}

// The keys of a part of S (a struct member `part`, e.g. the differential layout shared by diff
// and dgsa), declared once for the part and bound here to S's member.
template <class S, class Part>
std::vector<Key<S>> keys_of_part(Part S::*part, const std::vector<Key<Part>>& part_keys) {
  std::vector<Key<S>> keys;
  for (const Key<Part>& pk : part_keys) {
    Key<S> k;
    k.def = pk.def;
    k.read = [part, read = pk.read](const Config& c, S& s) { read(c, s.*part); };
    k.text_of = [part, text_of = pk.text_of](const S& s) { return text_of(s.*part); };
    k.auto_rule = pk.auto_rule;
    k.vision_value = pk.vision_value;
    k.text_value = pk.text_value;
    keys.push_back(std::move(k));
  }
  return keys;
}

// ---- a variant, its struct erased

// Values of a key that only the owning variant accepts: any other chosen variant refuses them
// ("model.attention.gate_layers=2 applies to model.attention.kind=dgsa only (got diff)").
struct ValueClaim {
  std::string key;
  std::vector<std::string> values;  // the claimed texts; empty = every value but the key's default
  std::vector<std::pair<std::string, std::string>> note_for;  // (variant, a hint added to its refusal)
};

struct VariantKey {
  KeyDef def;
  std::function<void(const Config&, VariantSettings&)> read;
  std::function<std::string(const VariantSettings&)> text_of;  // the member's value as spec text
  AutoRule auto_rule = AutoRule::None;
  std::string variant_default, vision_value, text_value;  // what "auto" resolves to, by the rule
};

struct AttentionVariant {
  std::string name;     // model.attention.kind
  std::string summary;  // one line for `repro list`
  std::vector<VariantKey> keys;
  std::vector<ValueClaim> claims;
  std::function<std::unique_ptr<VariantSettings>()> defaults;  // S{}

  // The settings struct from a validated, resolved Config.
  std::unique_ptr<VariantSettings> read(const Config& config) const;
  // Replaces "auto" in this variant's keys by their values for a vit (`vision`) or a text model.
  void resolve_auto(Config& config, bool vision) const;
};

template <class S>
AttentionVariant make_variant(std::string name, std::string summary, std::vector<Key<S>> keys,
                              std::vector<ValueClaim> claims = {}) {
  static_assert(std::is_base_of_v<VariantSettings, S>, "a variant's settings derive from SettingsOf<S>");
  AttentionVariant v;
  v.name = std::move(name);
  v.summary = std::move(summary);
  v.claims = std::move(claims);
  v.defaults = [] { return std::unique_ptr<VariantSettings>(std::make_unique<S>()); };
  const S defaults{};
  for (Key<S>& k : keys) {
    VariantKey vk;
    vk.def = k.def;
    vk.auto_rule = k.auto_rule;
    vk.variant_default = k.text_of(defaults);
    vk.def.default_value = k.auto_rule == AutoRule::None ? vk.variant_default : "auto";
    vk.vision_value = k.vision_value;
    vk.text_value = k.text_value;
    vk.read = [read = std::move(k.read)](const Config& c, VariantSettings& s) { read(c, dynamic_cast<S&>(s)); };
    vk.text_of = [text_of = k.text_of](const VariantSettings& s) { return text_of(dynamic_cast<const S&>(s)); };
    v.keys.push_back(std::move(vk));
  }
  return v;
}

template <class S>
std::vector<Key<S>> concat(std::vector<Key<S>> a, const std::vector<Key<S>>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

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
