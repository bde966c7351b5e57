#pragma once
#include "models/ffn/ffn.h"

namespace repro {

FeedForwardPtr make_mlp(const ModelOptions& model);
// Its parameters without building it: fc1 (D -> e*D) and fc2 (e*D -> D), with biases.
int64_t count_mlp(const ModelOptions& model);

}  // namespace repro
