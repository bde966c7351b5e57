#pragma once
#include "models/ffn/ffn.h"

namespace repro {

const std::vector<FeedForwardEntry>& ffn_table();
// The feed-forward block options.kind names.
FeedForwardPtr make_ffn(const FfnOptions& options);
// Its parameters, without building it (FeedForwardEntry::count).
int64_t ffn_parameters(const FfnOptions& options);

}  // namespace repro
