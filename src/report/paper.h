#pragma once
// A paper's published numbers as data (experiments/paper/*.yaml) and the
// comparison of our results with them.
#include <filesystem>
#include <string>
#include <vector>

#include "report/collect.h"

namespace YAML {
class Node;
}

namespace repro {

struct PaperCell {
  std::string row, column;   // model configuration and dataset, as in our specs
  double mean = 0, std = 0;  // std 0 when the paper prints none
  std::string printed;       // as printed, for parameter counts ("3.77M")
};

// A row of ours that the paper does not have (a reference such as the bag-of-words floor): shown beside the
// paper's cells with what it is, never compared with them.
struct ReferenceRow {
  std::string row, what;
};

struct PaperTable {
  int number = 0;
  std::string experiment;  // our experiment name
  std::string metric;      // test_acc | params
  int n = 0;
  std::vector<PaperCell> cells;
  std::vector<ReferenceRow> references;  // the table's `references:` list
};

std::vector<PaperTable> load_paper(const std::filesystem::path& path);
// A paper file's YAML, read once here for load_paper and load_claims: an unreadable
// file or a YAML syntax error is a repro::Error naming the file (and line).
YAML::Node load_paper_yaml(const std::filesystem::path& path);

// For each cell of the paper's tables for `results`' experiment and `metric`:
// ours (mean ± std, n) | paper | Δ, flagged when |Δ| > 2·max(std_ours, std_paper) + 0.5
// (std_ours counts as 0 with fewer than 2 seeds); a summary line counts the cells
// within and outside that band and those we have no runs for. Each reference row with runs follows the
// cells, marked "not in the paper", with a line saying what it is.
std::string compare_with_paper(const ExperimentResults& results, const std::vector<PaperTable>& paper,
                               const std::string& metric);

}  // namespace repro
