#pragma once
// The explicit kind -> attention factory table (no static self-registration);
// the kinds' spec names are in spec/options.cpp.
#include <vector>

#include "models/attention/attention.h"

namespace repro {

struct AttentionEntry {
  AttentionKind kind;
  const char* summary;  // one line for `repro list`
  AttentionPtr (*make)(const AttentionOptions&, int64_t layer_index);
};

const std::vector<AttentionEntry>& attention_table();
// The variant options.kind names, for the block at 0-based depth `layer_index`.
AttentionPtr make_attention(const AttentionOptions& options, int64_t layer_index);

}  // namespace repro
