#pragma once
// One name table per enum: `const EnumNames<E>& enum_names(E)` beside the enum (found by argument-dependent
// look-up), and the three ways to use it. Every outcome and kind of repro has exactly one such table: spec
// names, record fields, command-line choices and messages all read it.
#include <string>
#include <utility>
#include <vector>

#include "util/error.h"
#include "util/strings.h"

namespace repro {

template <typename E>
using EnumNames = std::vector<std::pair<E, const char*>>;

// Every name of E, in table order (the key table's choice lists).
template <typename E>
std::vector<std::string> names_of() {
  std::vector<std::string> names;
  for (const auto& entry : enum_names(E{})) names.emplace_back(entry.second);
  return names;
}

template <typename E>
std::string name_of(E value) {
  for (const auto& [item, name] : enum_names(value))
    if (item == value) return name;
  throw Error("internal: an enum value without a name");
}

// The value named `name`; throws naming `what` (a key) and the names expected.
template <typename E>
E enum_from_name(const std::string& name, const std::string& what) {
  for (const auto& [item, item_name] : enum_names(E{}))
    if (name == item_name) return item;
  throw Error(what + ": got '" + name + "', expected one of " + join(names_of<E>(), " | "));
}

}  // namespace repro
