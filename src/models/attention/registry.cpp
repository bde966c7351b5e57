#include "models/attention/registry.h"

#include "models/attention/vanilla.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

const std::vector<AttentionEntry>& attention_table() {
  static const std::vector<AttentionEntry> table = {
      {"vanilla", "multi-head scaled dot-product attention softmax(QK^T/sqrt(d))V", make_vanilla_attention},
  };
  return table;
}

std::vector<std::string> attention_kinds() {
  std::vector<std::string> names;
  for (const auto& entry : attention_table()) names.push_back(entry.name);
  return names;
}

AttentionPtr make_attention(const std::string& kind, const AttentionOptions& options) {
  for (const auto& entry : attention_table())
    if (kind == entry.name) return entry.make(options);
  throw Error("unknown attention kind '" + kind + "'; expected one of " + join(attention_kinds(), " | "));
}

}  // namespace repro
