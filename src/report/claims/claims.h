#pragma once
// A paper's claims as data (the `claims:` list of experiments/paper/*.yaml) and
// their verdict given a set of runs: each claim is a list of comparisons
// "row − over > margin" on datasets; a comparison is supported when the 95%
// confidence interval of the difference (Welch) lies entirely above the margin,
// contradicted when it lies entirely below it, "effect not reproduced" when it lies
// entirely below the paper's own effect (the paper's Δ for that pair, above the
// margin) but not below the margin, else inconclusive (also with fewer than 2 seeds
// on a side, or no runs). A claim is supported when all its comparisons are,
// contradicted when any is, else "effect not reproduced" when any is, else
// inconclusive. Each comparison also states its power: the chance that a test with
// our seeds and spread would have supported the claim had the paper's effect been true.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "report/claims/paper.h"
#include "report/records/collect.h"
#include "report/tables/welch.h"

namespace repro {

// NotTested: no runs of either side (the claims board's comparisons that no reading trained).
enum class Verdict { Supported, Contradicted, NotReproduced, Inconclusive, NotTested };

struct ComparisonVerdict {
  ClaimPair pair;
  std::string dataset;
  Verdict verdict = Verdict::Inconclusive;
  std::optional<WelchResult> test;  // nullopt: no runs on a side
  std::optional<double> expected;   // the paper's effect (its Δ), when known
  std::optional<double> power;      // detection_power against `expected`, when both are known
};

struct ClaimVerdict {
  Verdict verdict = Verdict::Inconclusive;
  std::vector<ComparisonVerdict> comparisons;
};

// The rule above for one comparison: a Welch result against `margin` and, when known, the paper's effect.
Verdict verdict_of(const WelchResult& test, double margin, std::optional<double> expected = std::nullopt);

// The chance that a study with `ours`' seeds and standard error would find row − over > margin (its 95% CI
// above the margin) if the true difference were `expected`: 1 − T_df(t_crit − (expected − margin) / SE), the
// shifted-t approximation of the noncentral t. nullopt when `ours` has no test (n < 2 or no spread).
std::optional<double> detection_power(const WelchResult& ours, double expected, double margin,
                                      double confidence = 0.95);

using SampleOf = std::function<std::optional<SampleSummary>(const std::string& row, const std::string& dataset)>;
// The paper's effect for a comparison (row − over on a dataset), when it has one.
using EffectOf = std::function<std::optional<double>(const ClaimPair& pair, const std::string& dataset)>;
ClaimVerdict evaluate_claim(const Claim& claim, const SampleOf& sample, const EffectOf& expected = {});

// "+2.16 [+1.66, +2.66]", "+1.80 (n too small)", "— (no runs)".
std::string comparison_text(const ComparisonVerdict& comparison);

std::string verdict_name(
    Verdict verdict);  // supported | contradicted | effect not reproduced | inconclusive | not tested

// The claims about `results`' experiment: each with its verdict on our runs and on the paper's own numbers
// (mean, std, n as printed), and the comparisons they rest on; with `last` (the same runs at their final epoch),
// the verdict and each comparison there too. "" when no claim is about this experiment.
std::string claims_report(const ExperimentResults& results, const std::vector<PaperTable>& tables,
                          const std::vector<Claim>& claims, const ExperimentResults* last = nullptr);

// The paper's own table tested like ours: every row against the table's first row, column by column (Welch on the
// printed means and stds with the table's n); "" for tables without stds or n < 2.
std::string paper_significance(const PaperTable& table);

}  // namespace repro
