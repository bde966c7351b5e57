#pragma once
// A paper's protocol ledger (the `ledger:` list of experiments/paper/*.yaml, read by report/claims/paper_file.h): for
// one of our experiments, each item of the protocol with the paper's words, our value and its status — as the
// paper says (paper), the paper is silent and the value is ours (open), or we do otherwise (differs) — with a
// note saying why; an item may name the profile it describes and the datasets whose cells it touches.
// `report --compare` prints it under the experiment's table (docs/report.md).
#include <filesystem>
#include <string>
#include <vector>

#include "report/claims/paper_file.h"

namespace repro {

// The ledger's items for `experiment` at `profile` as a markdown section; "" when it has none.
std::string ledger_report(const std::string& experiment, const std::string& profile, const std::string& heading,
                          const std::vector<LedgerItem>& ledger, const std::filesystem::path& source);

}  // namespace repro
