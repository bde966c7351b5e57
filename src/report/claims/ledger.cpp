#include "report/claims/ledger.h"

#include <algorithm>

#include "report/tables/table.h"
#include "util/strings.h"

namespace repro {

std::string ledger_report(const std::string& experiment, const std::string& profile, const std::string& heading,
                          const std::vector<LedgerItem>& ledger, const std::filesystem::path& source) {
  std::string rows;
  int counts[3] = {0, 0, 0};
  for (const auto& item : ledger) {
    if (item.experiment != experiment || (!item.profile.empty() && item.profile != profile)) continue;
    ++counts[static_cast<int>(item.status)];
    rows += "| " + markdown_cell(item.item) + " | " + markdown_cell(item.paper) + " | " + markdown_cell(item.ours) +
            " | *" + name_of(item.status) + "*" + (item.note.empty() ? "" : ": " + markdown_cell(item.note)) + " |\n";
  }
  if (rows.empty()) return "";
  return "### Protocol ledger of " + heading + "\n\nWhere our protocol follows the paper (*paper*), where the paper " +
         "is silent and the value is ours (*open*), and where we do otherwise (*differs*): " +
         std::to_string(counts[0]) + " / " + std::to_string(counts[1]) + " / " + std::to_string(counts[2]) +
         " items, from the `ledger:` of " + source.filename().string() + ".\n\n| item | the paper | ours | status |\n" +
         "|---|---|---|---|\n" + rows + "\n";
}

}  // namespace repro
