#pragma once
// A command-line option whose values are the names of an enum (its one name table, e.g. spec/options.h).
#include <CLI/CLI.hpp>
#include <string>

#include "cli/common.h"
#include "spec/options.h"
#include "util/strings.h"

namespace repro {

// CLI11 checks the value against E's names and `value` holds the enum; `help` "" = the names, "a | b".
template <typename E>
CLI::Option* add_enum_option(CLI::App& command, const std::string& name, E& value, const std::string& help = "") {
  const auto set = [&value, name](const std::string& text) { value = enum_from_name<E>(text, name); };
  return hinted(command.add_option_function<std::string>(name, set, help.empty() ? join(names_of<E>(), " | ") : help),
                CLI::IsMember(names_of<E>()));
}

}  // namespace repro
