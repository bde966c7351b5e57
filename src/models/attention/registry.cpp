#include "models/attention/registry.h"

#include "models/attention/dgsa.h"
#include "models/attention/diff.h"
#include "models/attention/gi.h"
#include "models/attention/plug.h"
#include "models/attention/vanilla.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

const std::vector<AttentionEntry>& attention_table() {
  static const std::vector<AttentionEntry> table = {
      {"vanilla", "multi-head scaled dot-product attention softmax(QK^T/sqrt(d))V", make_vanilla_attention},
      {"diff", "differential attention (A1 - lambda A2)V, per-head RMSNorm x (1 - lambda_init) (Ye et al. 2024)",
       make_diff_attention},
      {"dgsa", "differential gated self-attention (g A+ - (1-g) A-)V, per-token per-head sigmoid gate (M-DGSA)",
       make_dgsa_attention},
      {"plug", "pairwise logit gating softmax(A * (1 + G)), G from a head-shared gating path (PLuG)",
       make_plug_attention},
      {"gi", "gate with inhibition on Q and K: K * (GELU(S - inh_p max S) + 1) (giTransformer)", make_gi_attention},
  };
  return table;
}

std::vector<std::string> attention_kinds() {
  std::vector<std::string> names;
  for (const auto& entry : attention_table()) names.push_back(entry.name);
  return names;
}

AttentionPtr make_attention(const std::string& kind, const AttentionOptions& options) {
  static const Config defaults = Config::defaults();
  AttentionOptions resolved = options;
  if (!resolved.config) resolved.config = &defaults;  // variant options at their defaults
  for (const auto& entry : attention_table())
    if (kind == entry.name) return entry.make(resolved);
  throw Error("unknown attention kind '" + kind + "'; expected one of " + join(attention_kinds(), " | "));
}

}  // namespace repro
