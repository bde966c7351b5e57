#pragma once
#include "models/attention/attention.h"

namespace repro {

// vanilla has no keys of its own (model.attention.qkv_bias and the model's widths are common).
struct VanillaOptions {};

const AttentionEntry& vanilla_attention();

}  // namespace repro
