#pragma once
// A paper's protocol ledger (the `ledger:` list of experiments/paper/*.yaml): for one of our
// experiments, each item of the protocol with the paper's words, our value and its status —
// as the paper says (paper), the paper is silent and the value is ours (open), or we do
// otherwise (differs) — with a note saying why; an item may name the budget profile it describes. `report --compare` prints it under the
// experiment's table (docs/report.md).
#include <filesystem>
#include <string>
#include <vector>

#include "report/paper.h"
#include "spec/options.h"

namespace repro {

enum class LedgerStatus { Paper, Open, Differs };
const EnumNames<LedgerStatus>& enum_names(LedgerStatus);

struct LedgerItem {
  std::string experiment;  // our experiment name (a paper table's)
  std::string profile;     // the budget profile it describes ("" = every profile)
  std::string item, paper, ours;
  LedgerStatus status = LedgerStatus::Open;
  std::string note;  // why, or what part differs ("" = none)
};

// The `ledger:` list of a paper file (none when absent); each item's experiment must be one of `tables`'.
// Errors name file:line.
std::vector<LedgerItem> load_ledger(const std::filesystem::path& path, const std::vector<PaperTable>& tables);

// The ledger's items for `experiment` at `profile` as a markdown section; "" when it has none.
std::string ledger_report(const std::string& experiment, const std::string& profile, const std::string& heading,
                          const std::vector<LedgerItem>& ledger, const std::filesystem::path& source);

}  // namespace repro
