#pragma once
// The explicit name -> attention factory table (no static self-registration).
#include <string>
#include <vector>

#include "models/attention/attention.h"

namespace repro {

struct AttentionEntry {
  const char* name;
  const char* summary;  // one line for `repro list`
  AttentionPtr (*make)(const AttentionOptions&);
};

const std::vector<AttentionEntry>& attention_table();
std::vector<std::string> attention_kinds();
AttentionPtr make_attention(const std::string& kind, const AttentionOptions& options);

}  // namespace repro
