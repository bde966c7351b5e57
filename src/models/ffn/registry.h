#pragma once
#include "models/ffn/ffn.h"

namespace repro {

const std::vector<FeedForwardEntry>& ffn_table();
std::vector<std::string> ffn_kinds();
FeedForwardPtr make_ffn(const std::string& kind, const FeedForwardOptions& options);

}  // namespace repro
