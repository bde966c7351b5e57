#include "run/summary.h"

#include <chrono>
#include <cmath>
#include <ctime>

#include "util/strings.h"

namespace repro {

namespace {

nlohmann::json metrics_json(const EpochRow& row) {
  nlohmann::json out = {{"epoch", row.epoch}};
  for (const auto& name : metric_names()) {
    const double value = metric_value(row, name);
    out[name] = std::isfinite(value) ? nlohmann::json(value) : nlohmann::json();
  }
  return out;
}

}  // namespace

int64_t selected_epoch(const std::vector<EpochRow>& history, const std::string& rule, bool has_validation,
                       std::string* rule_used) {
  const bool best = rule == "best_val" || (rule == "auto" && has_validation);
  if (rule_used) *rule_used = best && has_validation ? "best_val" : "last";
  if (history.empty()) return 0;
  if (!best || !has_validation) return history.back().epoch;
  const EpochRow* chosen = &history.front();
  for (const auto& row : history)  // first epoch with the highest validation accuracy
    if (row.val_acc > chosen->val_acc) chosen = &row;
  return chosen->epoch;
}

nlohmann::json make_summary(const PlannedRun& run, const TrainOutcome& outcome, const RunData& data,
                            const ParamBreakdown& params, const nlohmann::json& environment) {
  std::string rule;
  const int64_t epoch = selected_epoch(outcome.history, name_of(run.options.train.select), data.val.size() > 0, &rule);
  nlohmann::json breakdown = nlohmann::json::object();
  for (const auto& [part, count] : params.parts) breakdown[part] = count;
  nlohmann::json summary = {
      {"status", name_of(outcome.status)},
      {"message", outcome.message},
      {"experiment", run.experiment},
      {"profile", run.folder == run.experiment ? "" : run.folder.substr(run.experiment.size() + 1)},
      {"model_config", run.model_config},
      {"row_index", run.row_index},
      {"dataset", run.dataset},
      {"seed", run.seed},
      {"epochs_planned", run.options.train.epochs},
      {"epochs_run", outcome.history.size()},
      {"selection", {{"rule", rule}, {"epoch", epoch}}},
      {"params", params.total},
      {"param_breakdown", breakdown},
      {"data",
       {{"train", data.train.size()},
        {"val", data.val.size()},
        {"test", data.test.size()},
        {"partial", data.partial()},
        {"notes", data.notes}}},
      {"environment", environment},
      {"git_commit", environment.at("git_commit")},
      {"wall_seconds", outcome.wall_seconds},
      {"resumed_from_epoch", outcome.resumed_from_epoch},
      {"finished_at", utc_now()},
  };
  summary["selected"] = epoch > 0 ? metrics_json(outcome.history[epoch - 1]) : nlohmann::json();
  summary["final"] = outcome.history.empty() ? nlohmann::json() : metrics_json(outcome.history.back());
  return summary;
}

}  // namespace repro
