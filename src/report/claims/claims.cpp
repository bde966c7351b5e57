#include "report/claims/claims.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "report/tables/significance.h"
#include "report/tables/table.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

namespace {

std::optional<SampleSummary> paper_sample(const PaperTable& table, const std::string& row, const std::string& column) {
  for (const auto& cell : table.cells)
    if (cell.row == row && cell.column == column) return SampleSummary{cell.mean, cell.std, table.n};
  return std::nullopt;
}

}  // namespace

std::string comparison_text(const ComparisonVerdict& c) {
  if (!c.test) return "— (no runs)";
  const WelchResult& t = *c.test;
  if (t.status != WelchStatus::Ok) return format_double(t.difference, "%+.2f") + " (" + welch_status_text(t.status) + ")";
  return format_double(t.difference, "%+.2f") + " [" + format_double(t.ci_low, "%+.2f") + ", " + format_double(t.ci_high, "%+.2f") + "]";
}

Verdict verdict_of(const WelchResult& test, double margin, std::optional<double> expected) {
  if (test.status != WelchStatus::Ok) return Verdict::Inconclusive;
  if (test.ci_low > margin) return Verdict::Supported;
  if (test.ci_high < margin) return Verdict::Contradicted;
  if (expected && *expected > margin && test.ci_high < *expected) return Verdict::NotReproduced;
  return Verdict::Inconclusive;
}

std::optional<double> detection_power(const WelchResult& ours, double expected, double margin, double confidence) {
  if (ours.status != WelchStatus::Ok || ours.standard_error <= 0 || ours.df <= 0) return std::nullopt;
  const double critical = student_t_quantile(1 - (1 - confidence) / 2, ours.df);
  return 1 - student_t_cdf(critical - (expected - margin) / ours.standard_error, ours.df);
}

ClaimVerdict evaluate_claim(const Claim& claim, const SampleOf& sample, const EffectOf& expected) {
  ClaimVerdict result;
  bool all_supported = true, any_contradicted = false, any_not_reproduced = false;
  for (const auto& dataset : claim.datasets)
    for (const auto& pair : claim.pairs) {
      ComparisonVerdict c{pair, dataset, Verdict::Inconclusive, std::nullopt, std::nullopt, std::nullopt};
      if (expected) c.expected = expected(pair, dataset);
      const auto row = sample(pair.row, dataset), over = sample(pair.over, dataset);
      if (row && over) {
        c.test = welch_test(*row, *over);
        c.verdict = verdict_of(*c.test, claim.margin, c.expected);
        if (c.expected) c.power = detection_power(*c.test, *c.expected, claim.margin);
      }
      all_supported &= c.verdict == Verdict::Supported;
      any_contradicted |= c.verdict == Verdict::Contradicted;
      any_not_reproduced |= c.verdict == Verdict::NotReproduced;
      result.comparisons.push_back(c);
    }
  result.verdict = any_contradicted     ? Verdict::Contradicted
                   : all_supported      ? Verdict::Supported
                   : any_not_reproduced ? Verdict::NotReproduced
                                        : Verdict::Inconclusive;
  return result;
}

std::string verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::Supported:
      return "supported";
    case Verdict::Contradicted:
      return "contradicted";
    case Verdict::NotReproduced:
      return "effect not reproduced";
    case Verdict::Inconclusive:
      return "inconclusive";
    case Verdict::NotTested:
      return "not tested";
  }
  return "";
}

std::string claims_report(const ExperimentResults& results, const std::vector<PaperTable>& tables,
                          const std::vector<Claim>& claims, const ExperimentResults* last) {
  std::string out;
  for (const auto& claim : claims) {
    if (claim.experiment != results.name) continue;
    const PaperTable* table = paper_table_for(tables, claim.experiment, claim.metric);
    const SampleOf paper_cell = [&](const std::string& row, const std::string& dataset) {
      return paper_sample(*table, row, dataset);
    };
    const EffectOf paper_effect = [&](const ClaimPair& pair, const std::string& dataset) -> std::optional<double> {
      const auto row = paper_cell(pair.row, dataset), over = paper_cell(pair.over, dataset);
      if (!row || !over) return std::nullopt;
      return row->mean - over->mean;
    };
    const ClaimVerdict ours = evaluate_claim(
        claim,
        [&](const std::string& row, const std::string& dataset) { return results_sample(results, row, dataset); },
        paper_effect);
    const ClaimVerdict paper = evaluate_claim(claim, paper_cell);
    std::optional<ClaimVerdict> at_last;  // the same claim at each run's final epoch
    if (last)
      at_last = evaluate_claim(
          claim,
          [&](const std::string& row, const std::string& dataset) { return results_sample(*last, row, dataset); },
          paper_effect);
    out += "- **" + claim.text + "**" + (claim.source.empty() ? "" : " (" + claim.source + ")") + ": ours **" +
           verdict_name(ours.verdict) + "**" +
           (at_last ? " (at the final epoch: " + verdict_name(at_last->verdict) + ")" : "") +
           "; the paper's own numbers (n = " + std::to_string(table->n) + "): " + verdict_name(paper.verdict) +
           ". Needs row − over > " + format_double(claim.margin, "%g") + ".\n\n";
    out += at_last ? "  | row − over | dataset | ours: Δ [95% CI] | | power | final epoch: Δ [95% CI] | | paper: Δ "
                     "[95% CI] | |\n  |---|---|---|---|---|---|---|---|---|\n"
                   : "  | row − over | dataset | ours: Δ [95% CI] | | power | paper: Δ [95% CI] | |\n"
                     "  |---|---|---|---|---|---|---|\n";
    for (size_t i = 0; i < ours.comparisons.size(); ++i) {
      const ComparisonVerdict &o = ours.comparisons[i], &p = paper.comparisons[i];
      const std::string power = o.power ? format_double(100 * *o.power, "%.0f%%") : "—";
      const std::string final_columns = at_last ? comparison_text(at_last->comparisons[i]) + " | " +
                                                      verdict_name(at_last->comparisons[i].verdict) + " | "
                                                : "";
      out += "  | " + o.pair.row + " − " + o.pair.over + " | " + o.dataset + " | " + comparison_text(o) + " | " +
             verdict_name(o.verdict) + " | " + power + " | " + final_columns + comparison_text(p) + " | " +
             verdict_name(p.verdict) + " |\n";
    }
    out += "\n";
  }
  if (out.empty()) return out;
  return "### Claims about " + (results.heading.empty() ? results.name : results.heading) +
         "\n\nA comparison is supported when the 95% confidence interval of row − over (Welch) lies entirely above "
         "the margin, contradicted when entirely below it, \"effect not reproduced\" when entirely below the "
         "paper's own Δ (but not below the margin), else inconclusive (also with fewer than 2 seeds on a side or no "
         "runs); a claim is supported when all its comparisons are, contradicted when any is, else not reproduced "
         "when any is. Power: the chance that our seeds, with our spread, would have found the claim supported had "
         "the paper's Δ been the true difference (shifted-t approximation)." +
         (last ? std::string(" Final epoch: the same test on each run's last epoch (docs/report.md, --epoch), so that "
                             "a verdict that holds at one epoch only shows.")
               : std::string()) +
         " Only the runs of this report count (\"no runs\": none here); the claims board (`repro report RESULTS "
         "--board`, results/README.md) judges each claim on every results folder at once. See docs/report.md.\n\n" +
         out;
}

std::string paper_significance(const PaperTable& table) {
  if (table.n < 2) return "";
  std::vector<std::string> rows, columns;
  for (const auto& cell : table.cells) {
    if (cell.std <= 0) return "";  // e.g. parameter counts: nothing to test
    if (std::find(rows.begin(), rows.end(), cell.row) == rows.end()) rows.push_back(cell.row);
    if (std::find(columns.begin(), columns.end(), cell.column) == columns.end()) columns.push_back(cell.column);
  }
  if (rows.size() < 2) return "";
  StatsTable stats;
  stats.title = "Side note: the paper's Table " + std::to_string(table.number) + " tested the same way (" +
                name_of(table.metric) + ", n = " + std::to_string(table.n) + ")";
  stats.rows = rows;
  stats.columns = columns;
  stats.baseline = rows.front();
  stats.lookup = [&table](const std::string& row, const std::string& column) {
    return paper_sample(table, row, column);
  };
  int significant = 0, tested = 0;
  for (const auto& row : rows)
    for (const auto& column : columns) {
      if (row == stats.baseline) continue;
      const auto a = paper_sample(table, row, column), b = paper_sample(table, stats.baseline, column);
      if (!a || !b) continue;
      ++tested;
      significant += welch_test(*a, *b).p < 0.05;
    }
  return render_stats_table(stats) + "\nEach row − " + stats.baseline +
         " from the published mean ± std with n = " + std::to_string(table.n) +
         " per cell (Welch): " + std::to_string(significant) + " of " + std::to_string(tested) +
         " differences have p < 0.05 (bold); the rest are within the paper's own seed noise.\n";
}

}  // namespace repro
