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

// The parameters of a built model, by their names.
ParamBreakdown count_parameters(const torch::nn::Module& model);
// The same count and breakdown from the options and the dataset's shape alone: nothing is allocated (a spec of 10^11
// parameters is counted in microseconds). Checks the options as build_model does and throws the same errors.
// tests/test_model.cpp checks it against the built model of every attention variant, feed-forward kind and model
// kind.
ParamBreakdown count_parameters(const ModelOptions& options, const DatasetInfo& info);
// Bytes that training a model of `params` float32 parameters holds however small its batch: the weights, their
// gradients and AdamW's two moments (4 x 4 bytes a parameter; activations come on top).
int64_t training_state_bytes(int64_t params);
std::string format_millions(int64_t count);  // 3771402 -> "3.77M"

// A count next to a paper's printed number (`paper` its value, `printed` as printed, e.g. "25.7M").
struct PrintedMatch {
  double delta_percent = 0;       // 100 (count - paper) / paper
  double half_unit = 0;           // half a unit of the printed last digit: "25.7M" -> 50000; 0 when unknown
  bool within_1_percent = false;  // |delta_percent| <= 1
  bool within_rounding = false;   // |count - paper| <= half_unit: the count rounds to the printed number
  bool matches() const { return within_1_percent || within_rounding; }
};

// Half a unit of the last digit of a printed count: "3.77M" -> 5000, "12M" -> 500000,
// "840k" -> 500, "1234" -> 0.5; 0 for "" or text that is not such a number.
double printed_half_unit(const std::string& printed);
PrintedMatch match_printed(int64_t count, double paper, const std::string& printed);

}  // namespace repro
