#pragma once
// Parameter counts with a breakdown by part of the model.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/model.h"

namespace repro {

struct ParamBreakdown {
  int64_t total = 0;
  std::vector<std::pair<std::string, int64_t>> parts;  // embeddings, attention, feed-forward, norms, head
};

ParamBreakdown count_parameters(const torch::nn::Module& model);
std::string format_millions(int64_t count);  // 3771402 -> "3.77M"

}  // namespace repro
