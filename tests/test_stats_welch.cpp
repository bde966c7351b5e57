// Welch's t test and the Student t distribution (src/report/welch.*). Expected
// numbers: tests/welch_reference.py (mpmath, 30 digits, the t CDF by numerical
// integration of the t density: a different route from the incomplete beta used
// here), which agree with the printed tables (t_0.975 at df 1, 2, 5, 10, 30:
// 12.706, 4.303, 2.571, 2.228, 2.042) and with Wikipedia's "Welch's t-test"
// example A1/A2 (t = -2.46, df ≈ 25.0, p = 0.021).
#include <cmath>
#include <vector>

#include "catch.h"
#include "report/tables/stats.h"
#include "report/tables/welch.h"

using namespace repro;

namespace {

SampleSummary summary_of(const std::vector<double>& values) {
  return {mean(values), sample_std(values), static_cast<long long>(values.size())};
}

}  // namespace

TEST_CASE("Student t quantiles and CDF match mpmath", "[report]") {
  CHECK(student_t_quantile(0.975, 1) == Approx(12.7062047362).epsilon(1e-9));
  CHECK(student_t_quantile(0.975, 2) == Approx(4.30265272975).epsilon(1e-9));
  CHECK(student_t_quantile(0.975, 5) == Approx(2.57058183564).epsilon(1e-9));
  CHECK(student_t_quantile(0.975, 10) == Approx(2.22813885199).epsilon(1e-9));
  CHECK(student_t_quantile(0.975, 30) == Approx(2.0422724563).epsilon(1e-9));
  CHECK(student_t_quantile(0.975, 24.9) == Approx(2.05995803246).epsilon(1e-9));
  CHECK(student_t_quantile(0.025, 5) == Approx(-2.57058183564).epsilon(1e-9));
  CHECK(student_t_cdf(2.0, 5) == Approx(0.949030260585071).epsilon(1e-12));
  CHECK(student_t_cdf(-1.5, 3.7) == Approx(0.106799084601007).epsilon(1e-12));
  CHECK(student_t_cdf(0.3, 1) == Approx(0.592773579077742).epsilon(1e-12));
  CHECK(student_t_cdf(4.0, 40) == Approx(0.999867043802167).epsilon(1e-12));
  CHECK(student_t_cdf(0, 7) == Approx(0.5));
  // I_x(1, 1) = x and I_x(a, b) = 1 - I_{1-x}(b, a).
  CHECK(regularized_incomplete_beta(1, 1, 0.3) == Approx(0.3));
  CHECK(regularized_incomplete_beta(2.5, 0.5, 0.8) == Approx(1 - regularized_incomplete_beta(0.5, 2.5, 0.2)));
}

TEST_CASE("Welch's test reproduces the textbook example A1 vs A2", "[report]") {
  const std::vector<double> a1 = {27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1,
                                  21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4};
  const std::vector<double> a2 = {27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0,
                                  24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4};
  const WelchResult r = welch_test(summary_of(a1), summary_of(a2));
  REQUIRE(r.status == WelchStatus::Ok);
  CHECK(r.difference == Approx(-2.16666666667).epsilon(1e-9));
  CHECK(r.standard_error == Approx(0.882424510014).epsilon(1e-9));
  CHECK(r.df == Approx(24.9885292902).epsilon(1e-9));
  CHECK(r.t == Approx(-2.45535639829).epsilon(1e-9));
  CHECK(r.p == Approx(0.0213780014629).epsilon(1e-8));
  CHECK(r.ci_low == Approx(-3.98409626714).epsilon(1e-8));
  CHECK(r.ci_high == Approx(-0.349237066192).epsilon(1e-8));
}

TEST_CASE("Welch's test on the paper's summaries (mean, std, n = 5)", "[report]") {
  // Table 1, CIFAR-10: DGViT x4 drop x2 78.06 ± 0.41 vs ViT 75.9 ± 0.09: significant.
  const WelchResult big = welch_test({78.06, 0.41, 5}, {75.9, 0.09, 5});
  REQUIRE(big.status == WelchStatus::Ok);
  CHECK(big.df == Approx(4.38459186491).epsilon(1e-9));
  CHECK(big.t == Approx(11.5063028674).epsilon(1e-9));
  CHECK(big.p == Approx(0.000193092956367).epsilon(1e-7));
  CHECK(big.ci_low == Approx(1.65634098293).epsilon(1e-8));
  CHECK(big.ci_high == Approx(2.66365901707).epsilon(1e-8));
  // Table 1, CIFAR-100: DGViT x2 drop x2 47.13 ± 0.26 vs ViT 47.01 ± 0.56: within noise.
  const WelchResult small = welch_test({47.13, 0.26, 5}, {47.01, 0.56, 5});
  CHECK(small.p == Approx(0.679962889588).epsilon(1e-8));
  CHECK(small.ci_low == Approx(-0.565973347505).epsilon(1e-8));
  CHECK(small.ci_high == Approx(0.805973347505).epsilon(1e-8));
}

TEST_CASE("Welch's test says 'n too small' for one seed and 'no spread' for two equal stds of 0", "[report]") {
  const WelchResult one = welch_test({70.1, NAN, 1}, {71.9, 0.5, 3});
  CHECK(one.status == WelchStatus::TooFewSeeds);
  CHECK(one.difference == Approx(-1.8));
  CHECK(welch_status_text(one.status) == "n too small");
  const WelchResult flat = welch_test({70, 0, 3}, {71, 0, 3});
  CHECK(flat.status == WelchStatus::NoSpread);
  CHECK(welch_status_text(flat.status).find("no spread") == 0);
  // Symmetry: swapping the samples flips the difference, the interval and t, not p.
  const WelchResult ab = welch_test({1, 0.5, 4}, {2, 1.5, 6});
  const WelchResult ba = welch_test({2, 1.5, 6}, {1, 0.5, 4});
  CHECK(ab.p == Approx(ba.p));
  CHECK(ab.ci_low == Approx(-ba.ci_high));
}
