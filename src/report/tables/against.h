#pragma once
// `repro report RUNS --against OTHER`: the same runs trained twice (on the CPU and on a GPU, two machines, two
// builds), compared seed by seed. Runs pair up by (experiment, profile, model configuration, dataset, seed). Each
// pair shows both values, Δ = RUNS − OTHER, both selected epochs and devices, and whether |Δ| is within the seed
// noise: at most 2 × the sample std over the seeds of OTHER's cell (RUNS' cell when OTHER's has fewer than 2).
// Twins must have been trained under the same resolved spec (spec.resolved.yaml; the keys that differ by design,
// spec/run_spec.h differs_by_design, aside): a pair that differs is shown with the keys and not judged. OTHER's
// records that cannot be trusted (corrupt, newer, inconsistent, links) are listed by name.
// Two trainings of one seed on different hardware are not bit-identical; what can be asked is that they differ no
// more than two seeds do.
#include <string>
#include <vector>

#include "report/records/collect.h"

namespace repro {

std::string against_report(const std::vector<ExperimentResults>& ours, const std::vector<ExperimentResults>& other,
                           const std::string& ours_name, const std::string& other_name, Metric metric);

}  // namespace repro
