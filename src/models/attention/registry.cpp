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
      vanilla_attention(),  // models/attention/vanilla.cpp
      diff_attention(),     // diff.cpp
      dgsa_attention(),     // dgsa.cpp
      plug_attention(),     // plug.cpp
      gi_attention(),       // gi.cpp
  };
  return table;
}

void install_attention_variants() {
  std::vector<const AttentionVariant*> variants;
  for (const auto& entry : attention_table()) variants.push_back(entry.variant);
  install_attention_variants(variants);
}

namespace {

const AttentionEntry& attention_entry(const AttentionOptions& options) {
  for (const auto& entry : attention_table())
    if (options.variant == entry.variant) return entry;
  throw Error(options.variant
                  ? "internal: attention variant '" + options.variant->name + "' is not in attention_table()"
                  : "internal: attention options without a variant (use attention_defaults)");
}

}  // namespace

AttentionPtr make_attention(const ModelOptions& model, int64_t layer_index) {
  return attention_entry(model.attention).make(model, layer_index);
}

int64_t attention_parameters(const ModelOptions& model) { return attention_entry(model.attention).count(model); }

}  // namespace repro
