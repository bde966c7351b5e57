#include "spec/keys.h"

#include <cmath>
#include <cstdlib>

#include "spec/attention_variant.h"
#include "spec/run_keys.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

namespace {

std::vector<KeyDef> build_table() {
  std::vector<KeyDef> table = run_key_defs(run_keys_before_attention());
  for (auto part : {attention_variant_keys(), run_key_defs(run_keys_after_attention())})
    table.insert(table.end(), part.begin(), part.end());
  return table;
}

double parse_number(const std::string& text, bool* ok) {
  // Accepts plain numbers and fractions like "16/3".
  const auto slash = text.find('/');
  char* end = nullptr;
  if (slash != std::string::npos) {
    bool ok_num = false, ok_den = false;
    const double num = parse_number(text.substr(0, slash), &ok_num);
    const double den = parse_number(text.substr(slash + 1), &ok_den);
    *ok = ok_num && ok_den && den != 0;
    return *ok ? num / den : 0;
  }
  const std::string clean = trim(text);
  const double value = std::strtod(clean.c_str(), &end);
  *ok = !clean.empty() && end == clean.c_str() + clean.size() && std::isfinite(value);
  return value;
}

std::string bounds_text(const KeyDef& def) {
  const auto show = [](double v) { return std::isinf(v) ? std::string(v < 0 ? "-inf" : "inf") : format_number(v); };
  return "[" + show(def.min) + ", " + show(def.max) + "]";
}

[[noreturn]] void bad_value(const KeyDef& def, const std::string& raw, const std::string& where) {
  throw Error(where + ": key '" + def.key + "': got '" + raw + "', expected " + type_name(def));
}

std::string checked_number(const KeyDef& def, const std::string& raw, const std::string& where) {
  bool ok = false;
  const double value = parse_number(raw, &ok);
  if (!ok) bad_value(def, raw, where);
  if (def.type == ValueType::Int && value != std::floor(value)) bad_value(def, raw, where);
  if (value < def.min || value > def.max) bad_value(def, raw, where);
  return format_number(value);
}

}  // namespace

const std::vector<KeyDef>& spec_keys() {
  static const std::vector<KeyDef> table = build_table();
  return table;
}

const KeyDef* find_key(const std::string& key) {
  for (const auto& def : spec_keys())
    if (def.key == key) return &def;
  return nullptr;
}

std::vector<std::string> all_key_names() {
  std::vector<std::string> names;
  for (const auto& def : spec_keys()) names.push_back(def.key);
  return names;
}

std::string type_name(const KeyDef& def) {
  switch (def.type) {
    case ValueType::Int:
      return "an integer in " + bounds_text(def);
    case ValueType::Float:
      return "a number in " + bounds_text(def) + (def.auto_ok ? " or auto" : "");
    case ValueType::Bool:
      return "true or false";
    case ValueType::String:
      return "a string";
    case ValueType::Enum:
      return "one of " + join(def.choices, " | ");
    case ValueType::FloatPair:
      return "a list of two numbers in " + bounds_text(def);
  }
  return "?";
}

std::string canonical_value(const KeyDef& def, const std::string& raw_in, const std::string& where) {
  const std::string raw = trim(raw_in);
  switch (def.type) {
    case ValueType::Int:
    case ValueType::Float:
      if (def.auto_ok && raw == "auto") return raw;
      return checked_number(def, raw, where);
    case ValueType::Bool:
      if (raw == "true" || raw == "True" || raw == "yes" || raw == "on" || raw == "1") return "true";
      if (raw == "false" || raw == "False" || raw == "no" || raw == "off" || raw == "0") return "false";
      bad_value(def, raw, where);
    case ValueType::String:
      return raw;
    case ValueType::Enum: {
      for (const auto& option : def.choices)
        if (option == raw) return raw;
      const std::string guess = closest_match(raw, def.choices);
      throw Error(where + ": key '" + def.key + "': got '" + raw + "', expected " + type_name(def) +
                  (guess.empty() ? "" : "; did you mean '" + guess + "'?"));
    }
    case ValueType::FloatPair: {
      std::string inner = raw;
      if (inner.size() >= 2 && inner.front() == '[' && inner.back() == ']') inner = inner.substr(1, inner.size() - 2);
      const auto parts = split(inner, ',');
      if (parts.size() != 2) bad_value(def, raw, where);
      KeyDef element = def;
      element.type = ValueType::Float;
      return "[" + checked_number(element, parts[0], where) + ", " + checked_number(element, parts[1], where) + "]";
    }
  }
  bad_value(def, raw, where);
}

void throw_unknown_key(const std::string& key, const std::string& where) {
  const std::string guess = closest_match(key, all_key_names());
  throw Error(where + ": unknown key '" + key + "'" +
              (guess.empty() ? " (see `repro list` for every key)" : "; did you mean '" + guess + "'?"));
}

}  // namespace repro
