#pragma once
// Summary statistics of per-seed results.
#include <vector>

namespace repro {

double mean(const std::vector<double>& values);        // NaN when empty
double sample_std(const std::vector<double>& values);  // ddof = 1; NaN when fewer than 2

}  // namespace repro
