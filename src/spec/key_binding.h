#pragma once
// A spec key declared once, with the member it fills: `key("model.dim", &ModelOptions::dim, 8, 16384, "…")`.
// The key's default is the member's default in S{} (its text is derived, never written twice); its type,
// range and choices come from the member's type. The one key table (spec/keys.h: validation, `repro list`,
// docs/spec.md) and the one conversion into typed options both read these bindings:
//   - the run's own keys: spec/run_keys.cpp, bound to RunOptions (spec/options.h);
//   - each attention variant's keys: beside its module, bound to its settings struct (spec/attention_variant.h).
// A part of a struct (a member struct) binds its keys once and keys_of_part lifts them into the outer struct.
// Every property of a key is in its binding: besides name, member, range and doc, how its "auto" resolves
// (auto_key, auto_by_dataset, on_off_by_modality), whether `repro eval` may set it (eval_may_override), whether
// twins may differ in it (differs_by_design), what runs recorded before it ran as (ran_before_as) and whether the bag
// of words refuses it (not_for_bow). The lists
// that other code reads (spec/run_spec.h: eval_override_keys, setting_differences; spec/presets.cpp:
// resolve_settings) are made from the bindings, never written beside them.
#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "spec/config.h"
#include "spec/dataset_traits.h"
#include "spec/keys.h"
#include "util/enum_names.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

// What an "auto" resolves against when the grid is expanded (spec/presets.cpp: resolve_settings, in the key
// table's order, so model.kind is resolved before model.pool and the attention keys read it).
struct AutoContext {
  const DatasetTraits& dataset;
  const Config& config;        // the preset applied, the keys before this one resolved
  std::string member_default;  // the key's member in its settings' defaults (RunOptions{}, the variant's S{})
  bool vision() const;         // model.kind is vit (spec/presets.cpp)
};
// The text an "auto" becomes; "" leaves it auto (data.augment of a dataset without a default augmentation).
using AutoResolver = std::function<std::string(const AutoContext&)>;

template <class S>
struct Key {
  KeyDef def;                                    // its default_value is derived from S{} (key_def below)
  std::function<void(const Config&, S&)> read;   // the checked, resolved value into the member; empty: none
  std::function<std::string(const S&)> text_of;  // the member's value as spec text; empty: def's default text
  AutoResolver resolve_auto;                     // set: the default is "auto", resolved by this; empty: no auto
};

namespace binding_detail {

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
  else if constexpr (std::is_same_v<T, std::string>)
    return value;
  else if constexpr (std::is_enum_v<T>)
    return name_of(value);
  else if constexpr (std::is_integral_v<T>)
    return std::to_string(value);
  else
    return format_number(value);
}

template <class T>
T value_of_text(const Config& c, const std::string& key) {
  if constexpr (std::is_same_v<T, std::string>) {
    return c.text(key);  // free text: "auto" is text like any other
  } else if constexpr (std::is_enum_v<T>) {
    const std::string& text = c.text(key);
    if (text == "auto") {  // a value of some enums (train.precision), an unresolved one of the others
      const auto names = names_of<T>();
      if (std::find(names.begin(), names.end(), text) == names.end()) still_auto(key);
    }
    return enum_from_name<T>(text, "internal: spec key '" + key + "'");
  } else {
    const std::string& text = resolved_text(c, key);
    if constexpr (std::is_same_v<T, bool>)
      return text == "true";
    else if constexpr (std::is_integral_v<T>)
      return static_cast<T>(c.integer(key));
    else
      return static_cast<T>(c.real(key));
  }
}

template <class T>
ValueType value_type() {
  if constexpr (std::is_same_v<T, bool>)
    return ValueType::Bool;
  else if constexpr (std::is_same_v<T, std::string>)
    return ValueType::String;
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

}  // namespace binding_detail

// A number (int64_t or double member) in [lo, hi].
template <class S, class T, std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, bool>, int> = 0>
Key<S> key(std::string name, T S::*member, double lo, double hi, std::string doc) {
  return binding_detail::bound(std::move(name), member, lo, hi, std::move(doc));
}

// A flag (bool member), a choice among an enum's names (enum member; its names table: enum_names(E)), or free
// text (std::string member).
template <class S, class T,
          std::enable_if_t<std::is_same_v<T, bool> || std::is_enum_v<T> || std::is_same_v<T, std::string>, int> = 0>
Key<S> key(std::string name, T S::*member, std::string doc) {
  return binding_detail::bound(std::move(name), member, -binding_detail::kInf, binding_detail::kInf, std::move(doc));
}

// Two numbers written as one list "[a, b]" (AdamW's betas), each in [lo, hi].
template <class S>
Key<S> pair_key(std::string name, double S::*first, double S::*second, double lo, double hi, std::string doc) {
  Key<S> k;
  k.def = KeyDef{name, ValueType::FloatPair, "", std::move(doc), lo, hi, {}};
  k.read = [name, first, second](const Config& c, S& s) { std::tie(s.*first, s.*second) = c.real_pair(name); };
  k.text_of = [first, second](const S& s) {
    return "[" + format_number(s.*first) + ", " + format_number(s.*second) + "]";
  };
  return k;
}

// A choice whose default is "auto": the chosen variant's own default for the member (its S{}; a part's member
// takes the default of the variant whose settings hold the part).
template <class S, class E>
Key<S> auto_key(std::string name, E S::*member, std::string doc) {
  Key<S> k = key(std::move(name), member, std::move(doc));
  k.def.choices.insert(k.def.choices.begin(), "auto");
  k.resolve_auto = [](const AutoContext& a) { return a.member_default; };
  return k;
}

// A choice or a number whose default is "auto", resolved per dataset before the conversion by `resolve`
// (model.kind: vit or text by the dataset's modality). `left_auto`: what an "auto" the dataset leaves
// unresolved reads as (data.augment of a dataset without a default augmentation: none); without it an
// unresolved "auto" is an internal error.
template <class S, class E, std::enable_if_t<std::is_enum_v<E>, int> = 0>
Key<S> auto_by_dataset(std::string name, E S::*member, std::string doc, AutoResolver resolve,
                       std::optional<E> left_auto = std::nullopt) {
  Key<S> k = key(name, member, std::move(doc));
  k.def.choices.insert(k.def.choices.begin(), "auto");
  k.resolve_auto = std::move(resolve);
  if (left_auto)
    k.read = [name, member, value = *left_auto](const Config& c, S& s) {
      s.*member = c.text(name) == "auto" ? value : binding_detail::value_of_text<E>(c, name);
    };
  return k;
}
template <class S>
Key<S> auto_by_dataset(std::string name, double S::*member, double lo, double hi, std::string doc,
                       AutoResolver resolve) {
  Key<S> k = key(std::move(name), member, lo, hi, std::move(doc));
  k.def.auto_ok = true;
  k.resolve_auto = std::move(resolve);
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
                 -binding_detail::kInf,
                 binding_detail::kInf,
                 {"auto", "on", "off"}};
  k.read = [name, member](const Config& c, S& s) { s.*member = binding_detail::resolved_text(c, name) == "on"; };
  k.text_of = [member](const S& s) { return std::string(s.*member ? "on" : "off"); };
  k.resolve_auto = [vision, text](const AutoContext& a) {
    return std::string((a.vision() ? vision : text) ? "on" : "off");
  };
  return k;
}

// A key that fills no member: it is applied to the other keys before the conversion (model.preset,
// spec/presets.cpp). Its default is written here, as there is no member to take it from.
template <class S>
Key<S> applied_before_conversion(std::string name, std::string default_value, std::vector<std::string> choices,
                                 std::string doc) {
  Key<S> k;
  k.def = KeyDef{std::move(name),       ValueType::Enum,      std::move(default_value), std::move(doc),
                 -binding_detail::kInf, binding_detail::kInf, std::move(choices)};
  return k;
}

// A key added with a new behaviour: records written before it existed ran as `value` (KeyDef::when_absent).
template <class S>
Key<S> ran_before_as(std::string value, Key<S> k) {
  k.def.when_absent = std::move(value);
  return k;
}

// A key `repro eval` may set on a finished run (KeyDef::eval_may_override): it changes the data evaluated, never
// the model or its training.
template <class S>
Key<S> eval_may_override(Key<S> k) {
  k.def.eval_may_override = true;
  return k;
}

// A key read only where `key` holds one of `values` (KeyDef::read_only_when_key): model.ffn.inh_p, read by the
// gimlp feed-forward only.
template <class S>
Key<S> read_only_when(std::string key, std::vector<std::string> values, Key<S> k) {
  k.def.read_only_when_key = std::move(key);
  k.def.read_only_when_values = std::move(values);
  return k;
}

// A key two trainings of one run may set differently by design (KeyDef::differs_by_design): where they ran, how
// their data is checked, how they are logged and evaluated in batches.
template <class S>
Key<S> differs_by_design(Key<S> k) {
  k.def.differs_by_design = true;
  return k;
}

// A model key the bag of words does not read and refuses where a spec sets it (KeyDef::not_for_bow): its blocks'
// and positions' settings.
template <class S>
Key<S> not_for_bow(Key<S> k) {
  k.def.not_for_bow = true;
  return k;
}

// The keys of a part of S (a struct member `part`, e.g. ModelOptions::ffn, or the differential layout
// shared by diff and dgsa), declared once for the part and bound here to S's member.
template <class S, class Part>
std::vector<Key<S>> keys_of_part(Part S::*part, const std::vector<Key<Part>>& part_keys) {
  std::vector<Key<S>> keys;
  for (const Key<Part>& pk : part_keys) {
    Key<S> k;
    k.def = pk.def;
    if (pk.read) k.read = [part, read = pk.read](const Config& c, S& s) { read(c, s.*part); };
    if (pk.text_of) k.text_of = [part, text_of = pk.text_of](const S& s) { return text_of(s.*part); };
    k.resolve_auto = pk.resolve_auto;
    keys.push_back(std::move(k));
  }
  return keys;
}

template <class S>
std::vector<Key<S>> concat(std::vector<Key<S>> a, const std::vector<Key<S>>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The key's definition with its default text: the member's value in `defaults` (S{}), or "auto".
template <class S>
KeyDef key_def(const Key<S>& k, const S& defaults) {
  KeyDef def = k.def;
  if (k.resolve_auto)
    def.default_value = "auto";
  else if (k.text_of)
    def.default_value = k.text_of(defaults);
  return def;
}

}  // namespace repro
