#include "report/ledger.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "report/yaml_at.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

namespace {

using Path = std::filesystem::path;

LedgerItem read_item(const Path& path, const YAML::Node& node, const std::vector<PaperTable>& tables) {
  if (!node.IsMap()) throw Error(yaml_at(path, node) + "a ledger item is a map {experiment, item, paper, ours, status}");
  for (const char* key : {"experiment", "item", "paper", "ours", "status"})
    if (!node[key]) throw Error(yaml_at(path, node) + "a ledger item needs '" + key + "'");
  LedgerItem item;
  item.experiment = yaml_scalar(path, node["experiment"], "experiment");
  const bool known = std::any_of(tables.begin(), tables.end(),
                                 [&](const PaperTable& t) { return t.experiment == item.experiment; });
  if (!known)
    throw Error(yaml_at(path, node["experiment"]) + "experiment '" + item.experiment +
                "' has no table in this file");
  item.item = yaml_scalar(path, node["item"], "item");
  item.paper = yaml_scalar(path, node["paper"], "paper");
  item.ours = yaml_scalar(path, node["ours"], "ours");
  item.status = enum_from_name<LedgerStatus>(yaml_scalar(path, node["status"], "status"),
                                             yaml_at(path, node["status"]) + "status");
  if (node["note"]) item.note = yaml_scalar(path, node["note"], "note");
  if (node["profile"]) item.profile = yaml_scalar(path, node["profile"], "profile");
  return item;
}

// A markdown table cell: one line, no column separator.
std::string cell(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return trim(out);
}

}  // namespace

const EnumNames<LedgerStatus>& enum_names(LedgerStatus) {
  static const EnumNames<LedgerStatus> names = {
      {LedgerStatus::Paper, "paper"}, {LedgerStatus::Open, "open"}, {LedgerStatus::Differs, "differs"}};
  return names;
}

std::vector<LedgerItem> load_ledger(const Path& path, const std::vector<PaperTable>& tables) {
  return yaml_list(path, load_paper_yaml(path), "ledger",
                   [&](const YAML::Node& node) { return read_item(path, node, tables); });
}

std::string ledger_report(const std::string& experiment, const std::string& profile, const std::string& heading,
                          const std::vector<LedgerItem>& ledger, const Path& source) {
  std::string rows;
  int counts[3] = {0, 0, 0};
  for (const auto& item : ledger) {
    if (item.experiment != experiment || (!item.profile.empty() && item.profile != profile)) continue;
    ++counts[static_cast<int>(item.status)];
    rows += "| " + cell(item.item) + " | " + cell(item.paper) + " | " + cell(item.ours) + " | *" +
            name_of(item.status) + "*" + (item.note.empty() ? "" : ": " + cell(item.note)) + " |\n";
  }
  if (rows.empty()) return "";
  return "### Protocol ledger of " + heading + "\n\nWhere our protocol follows the paper (*paper*), where the paper " +
         "is silent and the value is ours (*open*), and where we do otherwise (*differs*): " +
         std::to_string(counts[0]) + " / " + std::to_string(counts[1]) + " / " + std::to_string(counts[2]) +
         " items, from the `ledger:` of " + source.filename().string() + ".\n\n| item | the paper | ours | status |\n" +
         "|---|---|---|---|\n" + rows + "\n";
}

}  // namespace repro
