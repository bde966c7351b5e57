#pragma once
#include "models/ffn/ffn.h"

namespace repro {

const std::vector<FeedForwardEntry>& ffn_table();
// The feed-forward block options.kind names.
FeedForwardPtr make_ffn(const FfnOptions& options);

}  // namespace repro
