#pragma once
#include "models/ffn/ffn.h"

namespace repro {

const std::vector<FeedForwardEntry>& ffn_table();
// The feed-forward block model.ffn.kind names (its width, dropout and init are the model's).
FeedForwardPtr make_ffn(const ModelOptions& model);
// Its parameters, without building it (FeedForwardEntry::count).
int64_t ffn_parameters(const ModelOptions& model);

}  // namespace repro
