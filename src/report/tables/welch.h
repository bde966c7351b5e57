#pragma once
// Welch's unequal-variance t test of a difference of two means, from the
// summaries a report table holds (mean, sample std with ddof = 1, n), and the
// Student t distribution it needs (CDF through the regularized incomplete beta
// function, quantile by bisection on the CDF). No Boost.
#include <string>

namespace repro {

// One sample's summary.
struct SampleSummary {
  double mean = 0, std = 0;  // std: sample std, ddof = 1
  long long n = 0;
};

enum class WelchStatus {
  Ok,
  TooFewSeeds,  // n < 2 on either side: no std, no test ("n too small")
  NoSpread,     // both stds are 0: the standard error is 0, no t exists
};

struct WelchResult {
  WelchStatus status = WelchStatus::TooFewSeeds;
  double difference = 0;           // mean(a) - mean(b); set whatever the status
  double standard_error = 0;       // sqrt(s_a²/n_a + s_b²/n_b)
  double df = 0;                   // Welch–Satterthwaite degrees of freedom
  double t = 0;                    // difference / standard_error
  double ci_low = 0, ci_high = 0;  // the two-sided confidence interval of the difference
  double p = 1;                    // two-sided p-value of "no difference"
};

// Welch's test of mean(a) - mean(b) with a `confidence` (e.g. 0.95) interval.
WelchResult welch_test(const SampleSummary& a, const SampleSummary& b, double confidence = 0.95);

// I_x(a, b), the regularized incomplete beta function, for a, b > 0 and x in [0, 1].
double regularized_incomplete_beta(double a, double b, double x);
// P(T <= t) for Student's t with `df` > 0 degrees of freedom.
double student_t_cdf(double t, double df);
// The t with P(T <= t) = probability, for probability in (0, 1).
double student_t_quantile(double probability, double df);

// "n too small", "no spread" or "" (Ok): what a table prints instead of numbers.
std::string welch_status_text(WelchStatus status);

}  // namespace repro
