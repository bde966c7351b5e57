#include "run/summary.h"

#include <chrono>
#include <cmath>
#include <ctime>

#include "util/strings.h"
#include "util/version.h"

namespace repro {

namespace {

RecordedEpoch recorded_epoch(const EpochRow& row) {
  RecordedEpoch out{row.epoch, {}};
  for (const Metric metric : epoch_metrics()) {
    const double value = metric_value(row, metric);
    out.metrics[metric] = std::isfinite(value) ? std::optional<double>(value) : std::nullopt;
  }
  return out;
}

// The fields every record has: which run, and where it ran.
RunRecord record_of(const PlannedRun& run, const nlohmann::json& environment) {
  RunRecord r;
  r.id() = run.id();
  r.row_index = run.row_index;
  r.environment = environment;
  r.device = read_device_identity(environment, "environment");  // the GPU's identity run/device filled in
  r.git_commit = git_commit();
  return r;
}

}  // namespace

RunRecord make_summary(const PlannedRun& run, const TrainOutcome& outcome, const RunData& data,
                       const ParamBreakdown& params, const nlohmann::json& environment) {
  const EpochChoice chosen = selected_epoch(outcome.history, run.options.train.select, data.val.size() > 0);
  RunRecord r = record_of(run, environment);
  r.status = outcome.status;
  r.message = outcome.message;
  r.device.precision = precision_name(outcome.precision);
  r.device.cuda_graphs = outcome.cuda_graphs;
  r.trained = true;
  r.epochs_planned = run.options.train.epochs;
  r.epochs_run = static_cast<int64_t>(outcome.history.size());
  r.selection = {name_of(chosen.rule), chosen.epoch};
  r.params = params.total;
  r.param_breakdown.assign(params.parts.begin(), params.parts.end());
  r.data = {static_cast<int64_t>(data.train.size()), static_cast<int64_t>(data.val.size()),
            static_cast<int64_t>(data.test.size()), data.partial(), data.notes};
  r.wall_seconds = outcome.wall_seconds;
  r.resumed_from_epoch = outcome.resumed_from_epoch;
  r.finished_at = utc_now();
  if (chosen.epoch > 0) r.selected = recorded_epoch(outcome.history[chosen.epoch - 1]);
  if (!outcome.history.empty()) r.final = recorded_epoch(outcome.history.back());
  return r;
}

RunRecord failure_record(const PlannedRun& run, const std::string& message, const nlohmann::json& environment) {
  RunRecord r = record_of(run, environment);
  r.status = RunState::Failed;
  r.message = message;
  return r;
}

}  // namespace repro
