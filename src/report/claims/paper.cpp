#include "report/claims/paper.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/tables/table.h"

namespace repro {

bool within_paper_band(double ours_mean, double ours_std, const PaperCell& paper) {
  const double std_ours = std::isnan(ours_std) ? 0.0 : ours_std;
  return std::fabs(ours_mean - paper.mean) <= 2 * std::max(std_ours, paper.std) + 0.5;
}

std::string compare_with_paper(const ExperimentResults& results, const std::vector<PaperTable>& paper) {
  std::string out;
  const std::string metric = name_of(results.metric);
  for (const auto& table : paper) {
    if (table.experiment != results.name || table.metric != results.metric) continue;
    out +=
        "### " + results.name + " beside the paper's Table " + std::to_string(table.number) + " (" + metric + ")\n\n";
    out += "| model | dataset | ours (mean ± std, n) | paper (n = " + std::to_string(table.n) +
           ") | Δ | |\n|---|---|---|---|---|---|\n";
    int within = 0, outside = 0, missing = 0;
    for (const auto& cell : table.cells) {
      const Cell ours = make_cell(results, cell.row, cell.column);
      char paper_text[64], ours_text[96], delta_text[32];
      std::snprintf(paper_text, sizeof paper_text, "%.2f ± %.2f", cell.mean, cell.std);
      if (ours.values.empty()) {
        ++missing;
        out += "| " + cell.row + " | " + cell.column + " | — | " + paper_text + " | | no runs |\n";
        continue;
      }
      char std_text[32] = "n/a";
      if (!std::isnan(ours.std)) std::snprintf(std_text, sizeof std_text, "%.2f", ours.std);
      std::snprintf(ours_text, sizeof ours_text, "%.2f ± %s, %zu%s", ours.mean, std_text, ours.values.size(),
                    ours.partial ? " †" : "");
      const double delta = ours.mean - cell.mean;
      std::snprintf(delta_text, sizeof delta_text, "%+.2f", delta);
      const bool flagged = !within_paper_band(ours.mean, ours.std, cell);
      (flagged ? outside : within)++;
      out += "| " + cell.row + " | " + cell.column + " | " + ours_text + " | " + paper_text + " | " + delta_text +
             " | " + (flagged ? "**outside**" : "") + " |\n";
    }
    std::string references;  // what each reference row with runs is, one line each
    for (const auto& reference : table.references) {
      bool shown = false;
      for (const auto& dataset : results.datasets) {
        const Cell ours = make_cell(results, reference.row, dataset);
        if (ours.values.empty()) continue;
        char ours_text[96];
        std::snprintf(ours_text, sizeof ours_text, "%.2f ± %.2f, %zu%s", ours.mean,
                      std::isnan(ours.std) ? 0.0 : ours.std, ours.values.size(), ours.partial ? " †" : "");
        out += "| " + reference.row + " | " + dataset + " | " + ours_text + " | not in the paper | | reference |\n";
        shown = true;
      }
      if (shown) references += "*" + reference.row + "* (not in the paper): " + reference.what + "\n";
    }
    if (!references.empty()) out += "\n" + references;
    out += "\n" + std::to_string(within) + " cells within |Δ| ≤ 2·max(std_ours, std_paper) + 0.5, " +
           std::to_string(outside) + " outside, " + std::to_string(missing) +
           " without runs. † marks partial or subset data: a different protocol than the paper's.\n\n";
  }
  return out;
}

}  // namespace repro
