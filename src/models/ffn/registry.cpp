#include "models/ffn/registry.h"

#include "models/ffn/gimlp.h"
#include "models/ffn/mlp.h"
#include "models/ffn/swiglu.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

const std::vector<FeedForwardEntry>& ffn_table() {
  static const std::vector<FeedForwardEntry> table = {
      {"mlp", "Linear(D, ratio*D) -> GELU -> dropout -> Linear(ratio*D, D) [-> dropout]", make_mlp},
      {"swiglu", "Linear(D, e*D) split [a, b] -> a * SiLU(b) -> dropout -> Linear(e*D/2, D) [-> dropout]", make_swiglu},
      {"gimlp", "gate with inhibition: GELU(xW) * (1 + GELU(S - inh_p max S)) -> Linear(e*D, D) (giMLP)", make_gimlp},
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
