#pragma once
// One run's folder and the files in it:
//   spec.resolved.yaml  metrics.csv  summary.json  log.txt  checkpoint.pt
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "train/history.h"
#include "train/outcome.h"

namespace repro {

class RunFolder {
 public:
  explicit RunFolder(std::filesystem::path dir) : dir_(std::move(dir)) {}
  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path spec_path() const { return dir_ / "spec.resolved.yaml"; }
  std::filesystem::path metrics_path() const { return dir_ / "metrics.csv"; }
  std::filesystem::path steps_path() const { return dir_ / "steps.csv"; }  // train.log_every rows
  std::filesystem::path events_path() const { return dir_ / "events.out.tfevents.repro"; }  // train.tensorboard
  std::filesystem::path summary_path() const { return dir_ / "summary.json"; }
  std::filesystem::path log_path() const { return dir_ / "log.txt"; }
  std::filesystem::path checkpoint_path() const { return dir_ / "checkpoint.pt"; }

  // The summary.json contents, if the run has finished (complete, diverged or failed).
  std::optional<nlohmann::json> summary() const;
  // The status summary.json records; nullopt without one, or when its "status" is absent or unknown.
  std::optional<RunStatus> recorded_status() const;

 private:
  std::filesystem::path dir_;
};

}  // namespace repro
