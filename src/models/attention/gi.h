#pragma once
#include "models/attention/attention.h"

namespace repro {

enum class GiCombine { Multiplicative, Additive };
enum class GiMax { Batch, Token };
const EnumNames<GiCombine>& enum_names(GiCombine);
const EnumNames<GiMax>& enum_names(GiMax);

// gi's settings (model.attention.inh_p, gi_*).
struct GiOptions {
  double inh_p = 0.1;
  GiCombine combine = GiCombine::Multiplicative;
  GiMax max = GiMax::Batch;
  bool detach = false;
};

const AttentionEntry& gi_attention();

}  // namespace repro
