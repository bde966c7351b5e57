#pragma once
#include "models/attention/attention.h"

namespace repro {

AttentionPtr make_gi_attention(const AttentionOptions& options);

}  // namespace repro
