#include "report/claims/claims.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "report/claims/paper_file.h"
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
  if (t.status != WelchStatus::Ok)
    return format_double(t.difference, "%+.2f") + " (" + welch_status_text(t.status) + ")";
  return format_double(t.difference, "%+.2f") + " [" + format_double(t.ci_low, "%+.2f") + ", " +
         format_double(t.ci_high, "%+.2f") + "]";
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
  bool all_supported = true, any_contradicted = false, any_not_reproduced = false, any_tested = false;
  for (const auto& dataset : claim.datasets)
    for (const auto& pair : claim.pairs) {
      ComparisonVerdict c{pair, dataset, Verdict::NotTested, std::nullopt, std::nullopt, std::nullopt};
      if (expected) c.expected = expected(pair, dataset);
      const auto row = sample(pair.row, dataset), over = sample(pair.over, dataset);
      if (row && over) {  // else not tested: no run on a side
        c.test = welch_test(*row, *over);
        c.verdict = verdict_of(*c.test, claim.margin, c.expected);
        if (c.expected) c.power = detection_power(*c.test, *c.expected, claim.margin);
      }
      all_supported &= c.verdict == Verdict::Supported;
      any_contradicted |= c.verdict == Verdict::Contradicted;
      any_not_reproduced |= c.verdict == Verdict::NotReproduced;
      any_tested |= c.test.has_value();
      result.comparisons.push_back(c);
    }
  result.verdict = !any_tested          ? Verdict::NotTested
                   : any_contradicted   ? Verdict::Contradicted
                   : all_supported      ? Verdict::Supported
                   : any_not_reproduced ? Verdict::NotReproduced
                                        : Verdict::Inconclusive;
  return result;
}

const std::vector<VerdictEntry>& verdict_table() {
  static const std::vector<VerdictEntry> table = {
      {Verdict::Supported, "supported",
       "the 95% confidence interval of row − over (Welch) lies entirely above the margin"},
      {Verdict::Contradicted, "contradicted",
       "the interval lies entirely below the margin (also where row beats over by clearly less than the margin)"},
      {Verdict::NotReproduced, "effect not reproduced",
       "the interval is not below the margin but lies entirely below the paper's own Δ (when that is above the "
       "margin): our runs exclude the size the paper reports"},
      {Verdict::Inconclusive, "inconclusive",
       "runs on both sides, but the interval holds the margin and the paper's Δ, or a side has fewer than 2 seeds "
       "or no spread"},
      {Verdict::NotTested, "not tested", "no run counted on a side (none trained, or its records not counted)"}};
  return table;
}

const EnumNames<Verdict>& enum_names(Verdict) {
  static const EnumNames<Verdict> names = [] {
    EnumNames<Verdict> out;
    for (const auto& entry : verdict_table()) out.emplace_back(entry.verdict, entry.name);
    return out;
  }();
  return names;
}

std::string verdicts_help() {
  std::string out = "Verdicts (--compare and --board judge each comparison of a claim, row − over > margin, alike):\n";
  for (const auto& entry : verdict_table()) out += "  " + std::string(entry.name) + ": " + entry.meaning + ".\n";
  return out +
         "  A claim is supported when all its comparisons are, contradicted when any is, else effect not reproduced "
         "when any is, else inconclusive; not tested when none of its comparisons is (docs/report.md).\n";
}

namespace {

// One claim judged on `results` (and at the final epoch on `last`) beside the paper's own numbers; counts the
// comparisons our runs do not test into `untested`.
std::string claim_section(const Claim& claim, const PaperTable& table, const ExperimentResults& results,
                          const ExperimentResults* last, int& untested) {
  const SampleOf paper_cell = [&](const std::string& row, const std::string& dataset) {
    return paper_sample(table, row, dataset);
  };
  const EffectOf paper_effect = [&](const ClaimPair& pair, const std::string& dataset) -> std::optional<double> {
    const auto row = paper_cell(pair.row, dataset), over = paper_cell(pair.over, dataset);
    if (!row || !over) return std::nullopt;
    return row->mean - over->mean;
  };
  const auto ours_at = [&](const ExperimentResults& at) {
    return evaluate_claim(
        claim, [&](const std::string& row, const std::string& dataset) { return results_sample(at, row, dataset); },
        paper_effect);
  };
  const ClaimVerdict ours = ours_at(results), paper = evaluate_claim(claim, paper_cell);
  const std::optional<ClaimVerdict> at_last = last ? std::optional<ClaimVerdict>(ours_at(*last)) : std::nullopt;
  std::string out = "- **" + claim.text + "**" + (claim.source.empty() ? "" : " (" + claim.source + ")") + ": ours **" +
                    name_of(ours.verdict) + "**" +
                    (at_last ? " (at the final epoch: " + name_of(at_last->verdict) + ")" : "") +
                    "; the paper's own numbers (n = " + std::to_string(table.n) + "): " + name_of(paper.verdict) +
                    ". Needs row − over > " + format_double(claim.margin, "%g") + ".\n\n";
  out += at_last ? "  | row − over | dataset | ours: Δ [95% CI] | | power | final epoch: Δ [95% CI] | | paper: Δ "
                   "[95% CI] | |\n  |---|---|---|---|---|---|---|---|---|\n"
                 : "  | row − over | dataset | ours: Δ [95% CI] | | power | paper: Δ [95% CI] | |\n"
                   "  |---|---|---|---|---|---|---|\n";
  for (size_t i = 0; i < ours.comparisons.size(); ++i) {
    const ComparisonVerdict &o = ours.comparisons[i], &p = paper.comparisons[i];
    untested += o.verdict == Verdict::NotTested;
    const std::string power = o.power ? format_double(100 * *o.power, "%.0f%%") : "—";
    const std::string final_columns =
        at_last ? comparison_text(at_last->comparisons[i]) + " | " + name_of(at_last->comparisons[i].verdict) + " | "
                : "";
    out += "  | " + o.pair.row + " − " + o.pair.over + " | " + o.dataset + " | " + comparison_text(o) + " | " +
           name_of(o.verdict) + " | " + power + " | " + final_columns + comparison_text(p) + " | " +
           name_of(p.verdict) + " |\n";
  }
  return out + "\n";
}

// Under the claims: what the claims board, which reads every results folder, may judge otherwise, and why.
std::string board_note(const ExperimentResults& results, const PaperTable& table, int untested) {
  std::vector<std::string> readings;
  for (const auto& reading : table.readings) readings.push_back(reading_label(reading));  // what selects its runs
  const std::string board =
      "The claims board (`repro report RESULTS --board PAPER.yaml`, results/README.md) reads every results folder "
      "below RESULTS and judges these claims only on the runs of the readings of the paper's protocol the paper "
      "file lists (" +
      (readings.empty() ? std::string("none for this table") : join(readings, ", ")) + ")";
  const bool reading = std::any_of(table.readings.begin(), table.readings.end(),
                                   [&](const PaperReading& r) { return r.profile == results.profile; });
  if (!reading)
    return board + ": these runs (" + (results.profile.empty() ? "no profile" : "profile `" + results.profile + "`") +
           ") are not among them, so its verdicts are not this report's.\n";
  return board + ", each comparison from the folder with the most runs of its cells: where another folder holds runs " +
         "this one lacks (" + std::to_string(untested) + (untested == 1 ? " comparison" : " comparisons") +
         " not tested here) or more runs of a cell, its verdict may differ from this report's.\n";
}

}  // namespace

std::string claims_report(const ExperimentResults& results, const std::vector<PaperTable>& tables,
                          const std::vector<Claim>& claims, const ExperimentResults* last) {
  std::string out;
  const PaperTable* first = nullptr;  // the table of the first claim about this experiment
  int untested = 0;
  for (const auto& claim : claims) {
    if (claim.experiment != results.name) continue;
    const PaperTable* table = paper_table_for(tables, claim.experiment, claim.metric);
    if (!first) first = table;
    out += claim_section(claim, *table, results, last, untested);
  }
  if (out.empty()) return out;
  std::string meanings;
  for (const auto& entry : verdict_table())
    meanings += std::string(meanings.empty() ? "" : "; ") + "*" + entry.name + "*: " + entry.meaning;
  return "### Claims about " + (results.heading.empty() ? results.name : results.heading) +
         "\n\nEach comparison gets one verdict, in the claims board's words and by its rule: " + meanings +
         ". A claim is supported when all its comparisons are, contradicted when any is, else effect not reproduced "
         "when any is, else inconclusive; not tested when none of its comparisons is. Power: the chance that our "
         "seeds, with our spread, would have found the claim supported had the paper's Δ been the true difference "
         "(shifted-t approximation)." +
         (last ? std::string(" Final epoch: the same test on each run's last epoch (docs/report.md, --epoch), so that "
                             "a verdict that holds at one epoch only shows.")
               : std::string()) +
         " Only the runs of this report count (\"no runs\": none here). See docs/report.md.\n\n" + out +
         board_note(results, *first, untested);
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
