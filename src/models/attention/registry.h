#pragma once
// The explicit list of attention variants (no static self-registration): one line per
// variant in registry.cpp, each the entry its own file defines.
#include <vector>

#include "models/attention/attention.h"

namespace repro {

const std::vector<AttentionEntry>& attention_table();

// Hands every variant of the table to spec/ (install_attention_variants); call once before
// any spec is read: src/main.cpp, the tests and the fuzz targets do.
void install_attention_variants();

// The variant model.attention.variant names, for the block at 0-based depth `layer_index`.
AttentionPtr make_attention(const ModelOptions& model, int64_t layer_index);
// The parameters of one module of that variant, without building it (AttentionEntry::count).
int64_t attention_parameters(const ModelOptions& model);

}  // namespace repro
