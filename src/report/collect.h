#pragma once
// Gathers run records under a folder: the runs each plan.json expects and every
// summary.json found, so missing and failed runs show up instead of vanishing.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace repro {

struct RunResult {
  std::string model_config, dataset;
  int row_index = 0;
  long long seed = 0;
  std::string status;  // complete | diverged | failed | incomplete | missing
  double value = 0;    // the metric at the selected epoch (complete runs)
  bool partial = false;
  std::vector<std::string> notes;
};

struct ExperimentResults {
  std::string name;
  std::vector<std::string> datasets;       // in plan order
  std::vector<std::string> model_configs;  // in row order
  std::vector<RunResult> runs;
};

std::vector<ExperimentResults> collect_results(const std::filesystem::path& dir, const std::string& metric);

}  // namespace repro
