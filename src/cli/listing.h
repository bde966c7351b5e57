#pragma once
// The text of `repro list` and of docs/spec.md, both from the same tables.
#include <string>

namespace repro {

std::string listing_text();
std::string spec_markdown();

}  // namespace repro
