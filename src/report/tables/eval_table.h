#pragma once
// `repro report RUNS --eval NAME[,NAME...]`: the evaluations written by `repro eval`
// (<run>/eval/<NAME>.json) tabulated like a training metric: rows = model
// configurations, columns = dataset × evaluation point (e.g. "gaussian 0.1"),
// cells mean ± sample std over seeds, with runs that are missing, failed or not
// evaluated shown as such. With a --levels evaluation this is the robustness
// table of "train clean, test noisy".
#include <filesystem>
#include <string>
#include <vector>

#include "report/records/collect.h"
#include "report/records/run_filter.h"

namespace repro {

// The experiments under `dir` with one column per dataset and evaluation point; each run's value is the
// evaluation's loss when `metric` is a loss (lower is better), else its accuracy: the results' metric is then
// eval_loss or eval_acc. `names` in order; only the runs `filter` keeps (report --datasets/--rows/--seeds).
std::vector<ExperimentResults> collect_eval_results(const std::filesystem::path& dir,
                                                    const std::vector<std::string>& names, Metric metric,
                                                    const RunFilter& filter = {});

// Markdown tables of collect_eval_results, one per experiment (and profile).
std::string render_eval_report(const std::filesystem::path& dir, const std::vector<std::string>& names, Metric metric,
                               const RunFilter& filter = {});

}  // namespace repro
