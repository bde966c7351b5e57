#pragma once
#include "models/attention/attention.h"

namespace repro {

AttentionPtr make_diff_attention(const AttentionOptions& options);

}  // namespace repro
