#include "record/run_id.h"

#include <cerrno>
#include <cstdlib>

#include "util/strings.h"

namespace repro {

std::string RunId::compose_model_config(const std::string& row, const SweepValues& sweep) {
  std::string name = row;
  for (const auto& [label, value] : sweep) name += "+" + label + "=" + value;
  return name;
}

std::string RunId::folder_of(const std::string& experiment, const std::string& profile) {
  return profile.empty() ? experiment : experiment + "/" + profile;
}

std::string RunId::subdir() const { return dataset + "/" + safe_name(model_config) + "/seed_" + std::to_string(seed); }

std::string RunId::key() const {
  return folder() + "/" + dataset + "/" + model_config + "/seed_" + std::to_string(seed);
}

std::string RunId::describe() const { return model_config + " on " + dataset + ", seed " + std::to_string(seed); }

std::optional<RunId> RunId::from_dir(const std::filesystem::path& run_dir, const std::string& experiment,
                                     const std::string& profile) {
  const std::string seed_name = run_dir.filename().string();
  if (seed_name.rfind("seed_", 0) != 0 || seed_name.size() == 5) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long long seed = std::strtoll(seed_name.c_str() + 5, &end, 10);
  if (*end != '\0' || errno == ERANGE) return std::nullopt;
  RunId id;
  id.experiment = experiment;
  id.profile = profile;
  id.model_config = id.row = run_dir.parent_path().filename().string();
  id.dataset = run_dir.parent_path().parent_path().filename().string();
  id.seed = seed;
  return id;
}

bool operator==(const RunId& a, const RunId& b) {
  return a.experiment == b.experiment && a.profile == b.profile && a.dataset == b.dataset &&
         a.model_config == b.model_config && a.seed == b.seed;
}

}  // namespace repro
