#pragma once
#include "models/ffn/ffn.h"

namespace repro {

FeedForwardPtr make_swiglu(const ModelOptions& model);
// Its parameters without building it: fc1 (D -> 2 * e*D/2) and fc2 (e*D/2 -> D), with biases.
int64_t count_swiglu(const ModelOptions& model);

}  // namespace repro
