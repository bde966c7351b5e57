#pragma once
#include "models/ffn/ffn.h"

namespace repro {

FeedForwardPtr make_swiglu(const FfnOptions& options);

}  // namespace repro
