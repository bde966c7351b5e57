#pragma once
#include "models/attention/attention.h"

namespace repro {

AttentionPtr make_plug_attention(const AttentionOptions& options, int64_t layer_index);

}  // namespace repro
