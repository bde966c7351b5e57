#pragma once
// A paper's claims as data (the `claims:` list of experiments/paper/*.yaml) and
// their verdict given a set of runs: each claim is a list of comparisons
// "row − over > margin" on datasets, each judged with one of the verdicts below (their names and meanings: one
// table, verdict_table(); `repro report --help` prints it). A claim is supported when all its comparisons are,
// contradicted when any is, else "effect not reproduced" when any is, else inconclusive; not tested when none of
// its comparisons is. `report --compare` and the claims board judge by this one rule. Each comparison also states
// its power: the chance that a test with our seeds and spread would have supported the claim had the paper's
// effect been true.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "report/claims/paper.h"
#include "report/records/collect.h"
#include "report/tables/welch.h"
#include "util/enum_names.h"

namespace repro {

enum class Verdict { Supported, Contradicted, NotReproduced, Inconclusive, NotTested };

// Each verdict's name and what it means, in the order reports count them: the one table of both.
struct VerdictEntry {
  Verdict verdict;
  const char* name;     // "effect not reproduced"
  const char* meaning;  // one sentence
};
const std::vector<VerdictEntry>& verdict_table();
const EnumNames<Verdict>& enum_names(Verdict);  // the names of verdict_table()
// Every verdict with its meaning and the claim's rule, for `repro report --help` (from verdict_table()).
std::string verdicts_help();

struct ComparisonVerdict {
  ClaimPair pair;
  std::string dataset;
  Verdict verdict = Verdict::NotTested;
  std::optional<WelchResult> test;  // nullopt: no runs on a side (not tested)
  std::optional<double> expected;   // the paper's effect (its Δ), when known
  std::optional<double> power;      // detection_power against `expected`, when both are known
};

struct ClaimVerdict {
  Verdict verdict = Verdict::NotTested;
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

// The claims about `results`' experiment: each with its verdict on our runs and on the paper's own numbers
// (mean, std, n as printed), and the comparisons they rest on; with `last` (the same runs at their final epoch),
// the verdict and each comparison there too; under them, what the claims board, which reads every results folder,
// may judge otherwise. "" when no claim is about this experiment.
std::string claims_report(const ExperimentResults& results, const std::vector<PaperTable>& tables,
                          const std::vector<Claim>& claims, const ExperimentResults* last = nullptr);

// The paper's own table tested like ours: every row against the table's first row, column by column (Welch on the
// printed means and stds with the table's n); "" for tables without stds or n < 2.
std::string paper_significance(const PaperTable& table);

}  // namespace repro
