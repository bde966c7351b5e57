#pragma once
// The run's own spec keys (model.*, data.*, text.*, train.*), each declared once with the RunOptions member it
// fills (spec/key_binding.h): name, range, choices, doc; the default is the member's in RunOptions{}
// (spec/options.h). The key table (spec/keys.h) is these keys with the attention variants' own between
// model.attention.qkv_bias and model.ffn.kind; run_options (spec/options.h) converts a Config through them.
// A new key: its member in options.h and one line here.
#include <vector>

#include "spec/key_binding.h"
#include "spec/options.h"

namespace repro {

// In the order of the key table (`repro list`, docs/spec.md): up to model.attention.qkv_bias, and from
// model.ffn.kind on. Read only after install_attention_variants (model.attention.kind's choices).
const std::vector<Key<RunOptions>>& run_keys_before_attention();
const std::vector<Key<RunOptions>>& run_keys_after_attention();

// The keys' definitions, each default the text of its member in RunOptions{}.
std::vector<KeyDef> run_key_defs(const std::vector<Key<RunOptions>>& keys);

}  // namespace repro
