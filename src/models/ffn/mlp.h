#pragma once
#include "models/ffn/ffn.h"

namespace repro {

FeedForwardPtr make_mlp(const FfnOptions& options);
// Its parameters without building it: fc1 (D -> e*D) and fc2 (e*D -> D), with biases.
int64_t count_mlp(const FfnOptions& options);

}  // namespace repro
