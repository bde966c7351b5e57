#include "report/collect.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "util/error.h"
#include "util/files.h"

namespace repro {

namespace fs = std::filesystem;

namespace {

nlohmann::json read_json(const fs::path& path) {
  try {
    return nlohmann::json::parse(read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw Error(path.string() + ": not valid JSON (" + e.what() + ")");
  }
}

RunResult from_summary(const nlohmann::json& s, const std::string& metric, const fs::path& path) {
  RunResult r;
  r.model_config = s.value("model_config", "?");
  r.dataset = s.value("dataset", "?");
  r.row_index = s.value("row_index", 0);
  r.seed = s.value("seed", 0LL);
  r.status = s.value("status", "?");
  if (s.contains("data")) {
    r.partial = s["data"].value("partial", false);
    r.notes = s["data"].value("notes", std::vector<std::string>{});
  }
  if (r.status == "complete") {
    const auto& selected = s["selected"];
    if (!selected.is_object() || !selected.contains(metric))
      throw Error(path.string() + ": has no metric '" + metric +
                  "' (try train_loss, train_acc, val_loss, val_acc, test_loss, test_acc)");
    if (selected[metric].is_number())
      r.value = selected[metric].get<double>();
    else
      r.status = "no " + metric;  // e.g. val_acc without a validation split
  }
  return r;
}

ExperimentResults& experiment_named(std::vector<ExperimentResults>& all, const std::string& name) {
  for (auto& e : all)
    if (e.name == name) return e;
  all.push_back({name, {}, {}, {}});
  return all.back();
}

void add_unique(std::vector<std::string>& list, const std::string& item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

}  // namespace

std::vector<ExperimentResults> collect_results(const fs::path& dir, const std::string& metric) {
  if (!fs::is_directory(dir)) throw Error(dir.string() + ": not a folder of run records");
  std::vector<ExperimentResults> all;
  std::set<fs::path> seen;  // run folders already accounted for
  std::vector<fs::path> plans, summaries;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().filename() == "plan.json") plans.push_back(entry.path());
    if (entry.path().filename() == "summary.json") summaries.push_back(entry.path());
  }
  std::sort(plans.begin(), plans.end());
  std::sort(summaries.begin(), summaries.end());
  for (const auto& plan_path : plans) {
    const auto plan = read_json(plan_path);
    auto& experiment = experiment_named(all, plan.value("experiment", "?"));
    const fs::path root = plan_path.parent_path();  // run folders are relative to the plan
    for (const auto& planned : plan["runs"]) {
      const fs::path run_dir = fs::weakly_canonical(root / planned.value("dir", ""));
      seen.insert(run_dir);
      RunResult r;
      if (fs::exists(run_dir / "summary.json")) {
        r = from_summary(read_json(run_dir / "summary.json"), metric, run_dir / "summary.json");
      } else {
        r.model_config = planned.value("model_config", "?");
        r.dataset = planned.value("dataset", "?");
        r.row_index = planned.value("row_index", 0);
        r.seed = planned.value("seed", 0LL);
        r.status = fs::exists(run_dir / "checkpoint.pt") ? "incomplete" : "missing";
      }
      experiment.runs.push_back(r);
    }
  }
  for (const auto& summary_path : summaries) {
    if (seen.count(fs::weakly_canonical(summary_path.parent_path()))) continue;
    const auto summary = read_json(summary_path);
    auto& experiment = experiment_named(all, summary.value("experiment", "?"));
    experiment.runs.push_back(from_summary(summary, metric, summary_path));
  }
  for (auto& experiment : all) {
    std::stable_sort(experiment.runs.begin(), experiment.runs.end(),
                     [](const RunResult& a, const RunResult& b) { return a.row_index < b.row_index; });
    for (const auto& r : experiment.runs) {
      add_unique(experiment.model_configs, r.model_config);
      add_unique(experiment.datasets, r.dataset);
    }
  }
  if (all.empty()) throw Error(dir.string() + ": no run records (plan.json or summary.json) found");
  return all;
}

}  // namespace repro
