#pragma once
#include "models/attention/attention.h"

namespace repro {

AttentionPtr make_vanilla_attention(const AttentionOptions& options);

}  // namespace repro
