#pragma once
#include "models/ffn/ffn.h"

namespace repro {

FeedForwardPtr make_mlp(const FfnOptions& options);

}  // namespace repro
