#include "run/plan.h"

#include <yaml-cpp/yaml.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "data/registry.h"
#include "models/param_count.h"
#include "run/record.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace {

void flatten_yaml(const YAML::Node& node, const std::string& prefix, std::map<std::string, std::string>& out) {
  for (const auto& entry : node) {
    const std::string key = prefix + entry.first.as<std::string>();
    if (entry.second.IsMap())
      flatten_yaml(entry.second, key + ".", out);
    else
      out[key] = YAML::Dump(entry.second);
  }
}

// "key: old -> new" for every key whose resolved value differs between two spec texts.
std::vector<std::string> changed_keys(const std::string& before, const std::string& after) {
  std::map<std::string, std::string> a, b;
  flatten_yaml(YAML::Load(before), "", a);
  flatten_yaml(YAML::Load(after), "", b);
  std::vector<std::string> changes;
  for (const auto& [key, value] : b) {
    const auto it = a.find(key);
    if (it == a.end())
      changes.push_back(key + ": (absent) -> " + value);
    else if (it->second != value)
      changes.push_back(key + ": " + it->second + " -> " + value);
  }
  for (const auto& [key, value] : a)
    if (!b.count(key)) changes.push_back(key + ": " + value + " -> (absent)");
  return changes;
}

}  // namespace

std::vector<PlanStatus> check_plan(const std::vector<PlannedRun>& runs, const std::filesystem::path& out) {
  std::vector<PlanStatus> statuses;
  for (const auto& run : runs) {
    const RunFolder folder(out / run.relative_dir());
    if (!std::filesystem::exists(folder.spec_path())) {
      statuses.push_back(PlanStatus::Fresh);
      continue;
    }
    const std::string existing = read_file(folder.spec_path());
    if (existing != run.resolved_yaml()) {
      const auto changes = changed_keys(existing, run.resolved_yaml());
      throw Error(
          folder.dir().string() + " holds a run of a different spec (" +
          join(std::vector<std::string>(changes.begin(), changes.begin() + std::min<size_t>(3, changes.size())), "; ") +
          "). Nothing was overwritten: use another --out, another experiment name, or move that folder.");
    }
    const auto summary = folder.summary();
    const std::string status = summary ? summary->value("status", "") : "";
    if (status == "complete" || status == "diverged")
      statuses.push_back(PlanStatus::Finished);
    else if (std::filesystem::exists(folder.checkpoint_path()))
      statuses.push_back(PlanStatus::Resumable);
    else
      statuses.push_back(PlanStatus::Fresh);
  }
  return statuses;
}

void write_plan(const Experiment& experiment, const std::vector<PlannedRun>& runs, const std::filesystem::path& out) {
  nlohmann::json plan = {{"experiment", experiment.name},
                         {"profile", experiment.profile},
                         {"spec_file", experiment.source_file},
                         {"description", experiment.description},
                         {"runs", nlohmann::json::array()}};
  for (const auto& run : runs)
    plan["runs"].push_back({{"dir", run.run_subdir()},
                            {"model_config", run.model_config},
                            {"row_index", run.row_index},
                            {"dataset", run.dataset},
                            {"seed", run.seed}});
  write_file_atomic(out / experiment.folder() / "plan.json", plan.dump(2) + "\n");
}

std::string describe_plan(const std::vector<PlannedRun>& runs, const std::filesystem::path& out, DataLoader& loader) {
  std::ostringstream text;
  const Config defaults = Config::defaults();
  std::map<std::string, std::vector<int64_t>> seeds;  // config|dataset -> seeds
  std::vector<const PlannedRun*> firsts;
  for (const auto& run : runs) {
    const std::string key = run.model_config + "|" + run.dataset;
    if (!seeds.count(key)) firsts.push_back(&run);
    seeds[key].push_back(run.seed);
  }
  text << runs.size() << " runs in " << firsts.size() << " model configuration x dataset pairs\n";
  for (const PlannedRun* run : firsts) {
    torch::manual_seed(0);
    const auto model = build_model(model_options(run->config), loader.model_info(run->dataset, run->config));
    const auto params = count_parameters(*model);
    std::vector<std::string> seed_text;
    for (auto s : seeds[run->model_config + "|" + run->dataset]) seed_text.push_back(std::to_string(s));
    text << "\n"
         << run->model_config << " on " << run->dataset << ": " << params.total << " parameters ("
         << format_millions(params.total) << "), seeds " << join(seed_text, ",") << "\n";
    for (const auto& key : run->config.differences(defaults))
      text << "  " << key << " = " << run->config.text(key) << "\n";
    text << "  folders: " << (out / run->relative_dir()).parent_path().string() << "/seed_*\n";
  }
  return text.str();
}

}  // namespace repro
