#include "models/ffn/registry.h"

#include "models/ffn/mlp.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

const std::vector<FeedForwardEntry>& ffn_table() {
  static const std::vector<FeedForwardEntry> table = {
      {"mlp", "Linear(D, ratio*D) -> GELU -> dropout -> Linear(ratio*D, D) [-> dropout]", make_mlp},
  };
  return table;
}

std::vector<std::string> ffn_kinds() {
  std::vector<std::string> names;
  for (const auto& entry : ffn_table()) names.push_back(entry.name);
  return names;
}

FeedForwardPtr make_ffn(const std::string& kind, const FeedForwardOptions& options) {
  for (const auto& entry : ffn_table())
    if (kind == entry.name) return entry.make(options);
  throw Error("unknown feed-forward kind '" + kind + "'; expected one of " + join(ffn_kinds(), " | "));
}

}  // namespace repro
