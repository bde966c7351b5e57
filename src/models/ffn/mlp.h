#pragma once
#include "models/ffn/ffn.h"

namespace repro {

FeedForwardPtr make_mlp(const FeedForwardOptions& options);

}  // namespace repro
