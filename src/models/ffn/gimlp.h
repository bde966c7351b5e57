#pragma once
#include "models/ffn/ffn.h"

namespace repro {

FeedForwardPtr make_gimlp(const FfnOptions& options);

}  // namespace repro
