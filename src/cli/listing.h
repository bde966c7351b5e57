#pragma once
// The text of `repro list` and of docs/spec.md, both from the same tables.
#include <string>

namespace repro {

std::string listing_text();
// `repro list --format params`: the parameter and buffer names of every attention variant, feed-forward kind and
// model kind, built at a small width (docs/models.md holds it; a test keeps them equal).
std::string parameter_names_markdown();
// `repro list --format kinds`: the variants, feed-forward kinds, model kinds and presets counted and named (the
// README's line; a test keeps them equal).
std::string kinds_markdown();
std::string spec_markdown();

}  // namespace repro
