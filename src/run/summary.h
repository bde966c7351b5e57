#pragma once
// summary.json of a finished run: status, the selected epoch's metrics, the
// parameter count, data provenance and the environment.
#include <nlohmann/json.hpp>

#include "data/dataset.h"
#include "models/param_count.h"
#include "spec/grid.h"
#include "train/trainer.h"

namespace repro {

// The epoch reported for the run under train.select (1-based; 0 when none ran).
int64_t selected_epoch(const std::vector<EpochRow>& history, const std::string& rule, bool has_validation,
                       std::string* rule_used);

nlohmann::json make_summary(const PlannedRun& run, const TrainOutcome& outcome, const RunData& data,
                            const ParamBreakdown& params, const nlohmann::json& environment);

}  // namespace repro
