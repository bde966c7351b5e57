#pragma once
// The run record of a finished run (summary.json, record/run_record.h): its state, the selected epoch's metrics,
// the parameter count, data provenance and the environment.
#include <nlohmann/json.hpp>

#include "data/dataset.h"
#include "models/param_count.h"
#include "record/run_record.h"
#include "run/selection.h"
#include "spec/grid.h"
#include "train/trainer.h"

namespace repro {

// The record of a run that trained (complete or diverged); model_file is left for the runner.
RunRecord make_summary(const PlannedRun& run, const TrainOutcome& outcome, const RunData& data,
                       const ParamBreakdown& params, const nlohmann::json& environment);
// The record of a run that threw before it could finish: its one-line reason.
RunRecord failure_record(const PlannedRun& run, const std::string& message, const nlohmann::json& environment);

}  // namespace repro
