#include "report/paper.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>

#include "report/table.h"
#include "util/error.h"

namespace repro {

std::vector<PaperTable> load_paper(const std::filesystem::path& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path.string());
  } catch (const YAML::Exception& e) {
    throw Error(path.string() + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!root["tables"] || !root["tables"].IsSequence())
    throw Error(path.string() + ": expected a 'tables' list of {table, experiment, metric, n, cells}");
  std::vector<PaperTable> tables;
  for (const auto& t : root["tables"]) {
    PaperTable table;
    table.number = t["table"].as<int>(0);
    table.experiment = t["experiment"].as<std::string>("");
    table.metric = t["metric"].as<std::string>("test_acc");
    table.n = t["n"].as<int>(0);
    for (const auto& c : t["cells"]) {
      if (!c["row"] || !c["column"] || !c["mean"])
        throw Error(path.string() + ":" + std::to_string(c.Mark().line + 1) + ": a cell needs row, column and mean");
      table.cells.push_back({c["row"].as<std::string>(), c["column"].as<std::string>(), c["mean"].as<double>(),
                             c["std"].as<double>(0), c["printed"].as<std::string>("")});
    }
    tables.push_back(table);
  }
  return tables;
}

std::string compare_with_paper(const ExperimentResults& results, const std::vector<PaperTable>& paper,
                               const std::string& metric) {
  std::string out;
  for (const auto& table : paper) {
    if (table.experiment != results.name || table.metric != metric) continue;
    out +=
        "### " + results.name + " beside the paper's Table " + std::to_string(table.number) + " (" + metric + ")\n\n";
    out += "| model | dataset | ours (mean ± std, n) | paper (n = " + std::to_string(table.n) +
           ") | Δ | |\n|---|---|---|---|---|---|\n";
    int within = 0, outside = 0, missing = 0;
    for (const auto& cell : table.cells) {
      const Cell ours = make_cell(results, cell.row, cell.column);
      char paper_text[64], ours_text[96], delta_text[32];
      std::snprintf(paper_text, sizeof paper_text, "%.2f ± %.2f", cell.mean, cell.std);
      if (ours.values.empty()) {
        ++missing;
        out += "| " + cell.row + " | " + cell.column + " | — | " + paper_text + " | | no runs |\n";
        continue;
      }
      const double std_ours = std::isnan(ours.std) ? 0.0 : ours.std;
      char std_text[32] = "n/a";
      if (!std::isnan(ours.std)) std::snprintf(std_text, sizeof std_text, "%.2f", ours.std);
      std::snprintf(ours_text, sizeof ours_text, "%.2f ± %s, %zu%s", ours.mean, std_text, ours.values.size(),
                    ours.partial ? " †" : "");
      const double delta = ours.mean - cell.mean;
      std::snprintf(delta_text, sizeof delta_text, "%+.2f", delta);
      const bool flagged = std::fabs(delta) > 2 * std::max(std_ours, cell.std) + 0.5;
      (flagged ? outside : within)++;
      out += "| " + cell.row + " | " + cell.column + " | " + ours_text + " | " + paper_text + " | " + delta_text +
             " | " + (flagged ? "**outside**" : "") + " |\n";
    }
    out += "\n" + std::to_string(within) + " cells within |Δ| ≤ 2·max(std_ours, std_paper) + 0.5, " +
           std::to_string(outside) + " outside, " + std::to_string(missing) +
           " without runs. † marks partial or subset data: a different protocol than the paper's.\n\n";
  }
  return out;
}

}  // namespace repro
