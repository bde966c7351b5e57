#pragma once
#include "models/ffn/ffn.h"

namespace repro {

FeedForwardPtr make_gimlp(const ModelOptions& model);
// Its parameters without building it: trunk (D -> e*D), gate (D -> D), inhibit (D -> e*D) and fc2 (e*D -> D), with
// biases.
int64_t count_gimlp(const ModelOptions& model);

}  // namespace repro
