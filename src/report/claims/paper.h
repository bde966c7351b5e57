#pragma once
// A paper's published numbers (the tables of experiments/paper/*.yaml, read by report/claims/paper_file.h) and the
// comparison of our results with them.
#include <string>
#include <vector>

#include "report/claims/paper_file.h"
#include "report/records/collect.h"

namespace repro {

// The agreement band of a cell: |ours − paper| ≤ 2·max(std_ours, std_paper) + 0.5 (std_ours counts as 0 with
// fewer than 2 seeds).
bool within_paper_band(double ours_mean, double ours_std, const PaperCell& paper);

// For each cell of the paper's tables for `results`' experiment and metric:
// ours (mean ± std, n) | paper | Δ, flagged when outside the band above; a summary line counts the cells
// within and outside that band and those we have no runs for. Each reference row with runs follows the
// cells, marked "not in the paper", with a line saying what it is.
std::string compare_with_paper(const ExperimentResults& results, const std::vector<PaperTable>& paper);

}  // namespace repro
