#include "report/tables/welch.h"

#include <cmath>
#include <limits>

#include "util/error.h"

namespace repro {

namespace {

// The continued fraction of I_x(a, b) (modified Lentz's method; converges fast for x < (a + 1) / (a + b + 2)).
double beta_continued_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-15;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 1000; ++m) {
    const double m2 = 2.0 * m;
    double term = m * (b - m) * x / ((a + m2 - 1) * (a + m2));  // even step
    d = 1 + term * d;
    c = 1 + term / c;
    d = 1 / (std::fabs(d) < kTiny ? kTiny : d);
    c = std::fabs(c) < kTiny ? kTiny : c;
    h *= d * c;
    term = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));  // odd step
    d = 1 + term * d;
    c = 1 + term / c;
    d = 1 / (std::fabs(d) < kTiny ? kTiny : d);
    c = std::fabs(c) < kTiny ? kTiny : c;
    const double change = d * c;
    h *= change;
    if (std::fabs(change - 1) < kEpsilon) break;
  }
  return h;
}

}  // namespace

double regularized_incomplete_beta(double a, double b, double x) {
  if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1))
    throw Error("internal: incomplete beta needs a, b > 0 and 0 <= x <= 1");
  if (x == 0 || x == 1) return x;
  // x^a (1-x)^b / (a B(a, b)), in logarithms.
  const double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  if (x < (a + 1) / (a + b + 2)) return std::exp(log_front) * beta_continued_fraction(a, b, x) / a;
  return 1 - std::exp(log_front) * beta_continued_fraction(b, a, 1 - x) / b;  // I_x(a,b) = 1 - I_{1-x}(b,a)
}

double student_t_cdf(double t, double df) {
  if (!(df > 0)) throw Error("internal: the t distribution needs df > 0");
  if (std::isinf(t)) return t > 0 ? 1 : 0;
  // P(|T| > |t|) = I_{df/(df+t²)}(df/2, 1/2).
  const double tail = 0.5 * regularized_incomplete_beta(df / 2, 0.5, df / (df + t * t));
  return t >= 0 ? 1 - tail : tail;
}

double student_t_quantile(double probability, double df) {
  if (!(probability > 0) || !(probability < 1)) throw Error("internal: a t quantile needs 0 < probability < 1");
  if (probability < 0.5) return -student_t_quantile(1 - probability, df);
  double low = 0, high = 1;
  while (student_t_cdf(high, df) < probability && high < 1e12) high *= 2;
  for (int i = 0; i < 200 && high - low > 1e-12 * std::max(1.0, high); ++i) {
    const double middle = 0.5 * (low + high);
    (student_t_cdf(middle, df) < probability ? low : high) = middle;
  }
  return 0.5 * (low + high);
}

WelchResult welch_test(const SampleSummary& a, const SampleSummary& b, double confidence) {
  WelchResult result;
  result.difference = a.mean - b.mean;
  if (a.n < 2 || b.n < 2 || std::isnan(a.std) || std::isnan(b.std)) return result;  // TooFewSeeds
  const double var_a = a.std * a.std / static_cast<double>(a.n);                    // squared standard errors
  const double var_b = b.std * b.std / static_cast<double>(b.n);
  result.standard_error = std::sqrt(var_a + var_b);
  if (result.standard_error == 0) {
    result.status = WelchStatus::NoSpread;
    return result;
  }
  result.status = WelchStatus::Ok;
  result.df = (var_a + var_b) * (var_a + var_b) /
              (var_a * var_a / static_cast<double>(a.n - 1) + var_b * var_b / static_cast<double>(b.n - 1));
  result.t = result.difference / result.standard_error;
  result.p = 2 * student_t_cdf(-std::fabs(result.t), result.df);
  const double half_width = student_t_quantile(0.5 + confidence / 2, result.df) * result.standard_error;
  result.ci_low = result.difference - half_width;
  result.ci_high = result.difference + half_width;
  return result;
}

std::string welch_status_text(WelchStatus status) {
  switch (status) {
    case WelchStatus::Ok:
      return "";
    case WelchStatus::TooFewSeeds:
      return "n too small";
    case WelchStatus::NoSpread:
      return "no spread (std 0)";
  }
  return "";
}

}  // namespace repro
