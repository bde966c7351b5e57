#pragma once
// A paper's claims as data (the `claims:` list of experiments/paper/*.yaml) and
// their verdict given a set of runs: each claim is a list of comparisons
// "row − over > margin" on datasets; a comparison is supported when the 95%
// confidence interval of the difference (Welch) lies entirely above the margin,
// contradicted when it lies entirely below it, else inconclusive (also with
// fewer than 2 seeds on a side, or no runs). A claim is supported when all its
// comparisons are, contradicted when any is, else inconclusive.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "report/collect.h"
#include "report/paper.h"
#include "report/welch.h"

namespace repro {

struct ClaimPair {
  std::string row, over;  // "row beats over"
};

struct Claim {
  std::string text;        // as the paper says it
  std::string source;      // where in the paper ("§5.1", "Table 2")
  std::string experiment;  // our experiment name (a paper table's)
  std::string metric = "test_acc";
  std::vector<ClaimPair> pairs;
  std::vector<std::string> datasets;
  double margin = 0;  // in the metric's unit (points of accuracy)
  std::string where;  // file:line of the claim
};

enum class Verdict { Supported, Contradicted, Inconclusive };

struct ComparisonVerdict {
  ClaimPair pair;
  std::string dataset;
  Verdict verdict = Verdict::Inconclusive;
  std::optional<WelchResult> test;  // nullopt: no runs on a side
};

struct ClaimVerdict {
  Verdict verdict = Verdict::Inconclusive;
  std::vector<ComparisonVerdict> comparisons;
};

// The `claims:` list of a paper file (none when absent); each claim is checked against `tables` (its experiment
// has a table for its metric, its rows and datasets are cells of it). Errors name file:line.
std::vector<Claim> load_claims(const std::filesystem::path& path, const std::vector<PaperTable>& tables);

// The rule above for one comparison: a Welch result against `margin`.
Verdict verdict_of(const WelchResult& test, double margin);

using SampleOf = std::function<std::optional<SampleSummary>(const std::string& row, const std::string& dataset)>;
ClaimVerdict evaluate_claim(const Claim& claim, const SampleOf& sample);

std::string verdict_name(Verdict verdict);  // supported | contradicted | inconclusive

// The claims about `results`' experiment: each with its verdict on our runs and on the paper's own numbers
// (mean, std, n as printed), and the comparisons they rest on; "" when no claim is about this experiment.
std::string claims_report(const ExperimentResults& results, const std::vector<PaperTable>& tables,
                          const std::vector<Claim>& claims);

// The paper's own table tested like ours: every row against the table's first row, column by column (Welch on the
// printed means and stds with the table's n); "" for tables without stds or n < 2.
std::string paper_significance(const PaperTable& table);

}  // namespace repro
