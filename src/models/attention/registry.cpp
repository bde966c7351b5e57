#include "models/attention/registry.h"

#include "models/attention/dgsa.h"
#include "models/attention/diff.h"
#include "models/attention/gi.h"
#include "models/attention/plug.h"
#include "models/attention/vanilla.h"
#include "util/error.h"

namespace repro {

const std::vector<AttentionEntry>& attention_table() {
  static const std::vector<AttentionEntry> table = {
      {AttentionKind::Vanilla, "multi-head scaled dot-product attention softmax(QK^T/sqrt(d))V",
       make_vanilla_attention},
      {AttentionKind::Diff,
       "differential attention (A1 - lambda A2)V, per-head RMSNorm x (1 - lambda_init) (Ye et al. 2024)",
       make_diff_attention},
      {AttentionKind::Dgsa,
       "differential gated self-attention (g A+ - (1-g) A-)V, per-token per-head sigmoid gate (M-DGSA)",
       make_dgsa_attention},
      {AttentionKind::Plug, "pairwise logit gating softmax(A * (1 + G)), G from a head-shared gating path (PLuG)",
       make_plug_attention},
      {AttentionKind::Gi, "gate with inhibition on Q and K: K * (GELU(S - inh_p max S) + 1) (giTransformer)",
       make_gi_attention},
  };
  return table;
}

AttentionPtr make_attention(const AttentionOptions& options, int64_t layer_index) {
  for (const auto& entry : attention_table())
    if (options.kind == entry.kind) return entry.make(options, layer_index);
  throw Error("internal: attention kind '" + name_of(options.kind) + "' has no entry in attention_table()");
}

}  // namespace repro
