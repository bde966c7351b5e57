#include "report/records/run_filter.h"

#include <algorithm>
#include <set>

#include "util/error.h"
#include "util/strings.h"

namespace repro {

namespace {

template <typename T>
bool listed(const std::vector<T>& list, const T& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

bool row_matches(const std::string& wanted, const RunId& run) {
  return wanted == run.model_config || (!run.row.empty() && wanted == run.row);
}

}  // namespace

void check_selects(const std::vector<RunId>& runs, const RunFilter& filter) {
  std::set<std::string> datasets, rows;
  std::set<int64_t> seeds;
  for (const auto& run : runs) {
    datasets.insert(run.dataset);
    rows.insert(run.row.empty() ? run.model_config : run.row);
    seeds.insert(run.seed);
  }
  const auto listing = [](const std::set<std::string>& names) {
    return join(std::vector<std::string>(names.begin(), names.end()), ", ");
  };
  for (const auto& dataset : filter.datasets)
    if (!datasets.count(dataset))
      throw Error("--datasets " + (dataset.empty() ? std::string("''") : dataset) +
                  ": no run of that dataset here (datasets: " + listing(datasets) + ")");
  for (const auto& row : filter.rows)
    if (std::none_of(runs.begin(), runs.end(), [&](const RunId& run) { return row_matches(row, run); }))
      throw Error("--rows " + (row.empty() ? std::string("''") : row) +
                  ": no run of that row here (rows: " + listing(rows) + ")");
  for (const int64_t seed : filter.seeds)
    if (!seeds.count(seed)) {
      std::vector<std::string> there;
      for (const int64_t s : seeds) there.push_back(std::to_string(s));
      throw Error("--seeds: no run of seed " + std::to_string(seed) + " here (seeds: " + join(there, ", ") + ")");
    }
}

bool RunFilter::keeps(const RunId& run) const {
  if (!datasets.empty() && !listed(datasets, run.dataset)) return false;
  if (!seeds.empty() && !listed(seeds, run.seed)) return false;
  if (rows.empty()) return true;
  return std::any_of(rows.begin(), rows.end(), [&](const std::string& row) { return row_matches(row, run); });
}

}  // namespace repro
