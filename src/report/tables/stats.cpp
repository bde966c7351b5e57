#include "report/tables/stats.h"

#include <cmath>

namespace repro {

double mean(const std::vector<double>& values) {
  if (values.empty()) return NAN;
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

double sample_std(const std::vector<double>& values) {
  if (values.size() < 2) return NAN;
  const double m = mean(values);
  double squares = 0;
  for (double v : values) squares += (v - m) * (v - m);
  return std::sqrt(squares / static_cast<double>(values.size() - 1));
}

}  // namespace repro
