#include "report/paper.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "data/registry.h"
#include "report/table.h"
#include "report/yaml_at.h"
#include "record/epoch_row.h"
#include "util/error.h"
#include "util/strings.h"

namespace repro {

namespace {

double number_field(const std::filesystem::path& path, const YAML::Node& cell, const char* key) {
  const YAML::Node value = cell[key];
  if (!value.IsDefined()) throw Error(yaml_at(path, cell) + "lacks " + key);
  double number = 0;
  if (!value.IsScalar() || !YAML::convert<double>::decode(value, number) || !std::isfinite(number))
    throw Error(yaml_at(path, value) + key + " '" + (value.IsScalar() ? value.Scalar() : "") + "' is not a number");
  return number;
}

// A whole number (table numbers, n): a double outside int's range cast to int is undefined (found by tests/fuzz).
int whole_field(const std::filesystem::path& path, const YAML::Node& node, const char* key) {
  const double number = number_field(path, node, key);
  if (number != std::floor(number) || std::fabs(number) > 1e6)
    throw Error(yaml_at(path, node[key]) + key + " '" + node[key].Scalar() + "' is not a whole number up to 1000000");
  return static_cast<int>(number);
}

std::string text_field(const std::filesystem::path& path, const YAML::Node& node, const char* key,
                       const std::string& fallback) {
  const YAML::Node value = node[key];
  if (!value.IsDefined()) return fallback;
  if (!value.IsScalar()) throw Error(yaml_at(path, value) + key + " must be a single value");
  return value.Scalar();
}

PaperCell read_cell(const std::filesystem::path& path, const YAML::Node& c, const std::vector<std::string>& datasets,
                    const std::string& metric) {
  if (!c.IsMap()) throw Error(yaml_at(path, c) + "a cell is a map {row, column, mean, std}");
  if (!c["row"] || !c["column"] || !c["mean"]) throw Error(yaml_at(path, c) + "a cell needs row, column and mean");
  PaperCell cell{text_field(path, c, "row", ""), text_field(path, c, "column", ""), number_field(path, c, "mean"), 0,
                 text_field(path, c, "printed", "")};
  if (c["std"]) cell.std = number_field(path, c, "std");
  if (std::find(datasets.begin(), datasets.end(), cell.column) == datasets.end())
    throw Error(yaml_at(path, c["column"]) + "unknown dataset '" + cell.column + "' (known: " + join(datasets, ", ") +
                ")");
  if (cell.std < 0) throw Error(yaml_at(path, c["std"]) + "std " + c["std"].Scalar() + " is negative");
  const bool accuracy = metric.find("acc") != std::string::npos;
  if (cell.mean < 0 || (accuracy && cell.mean > 100))
    throw Error(yaml_at(path, c["mean"]) + "mean " + c["mean"].Scalar() + " is outside " +
                (accuracy ? "0-100 (accuracies are in %)" : "0-inf"));
  return cell;
}

PaperTable read_table(const std::filesystem::path& path, const YAML::Node& t) {
  if (!t.IsMap()) throw Error(yaml_at(path, t) + "a table is a map {table, experiment, metric, n, cells}");
  PaperTable table;
  table.number = whole_field(path, t, "table");
  table.experiment = text_field(path, t, "experiment", "");
  if (table.experiment.empty())
    throw Error(yaml_at(path, t) + "table " + std::to_string(table.number) + " needs experiment");
  table.metric = text_field(path, t, "metric", "test_acc");
  const auto metrics = metric_names();
  if (table.metric != "params" && std::find(metrics.begin(), metrics.end(), table.metric) == metrics.end())
    throw Error(yaml_at(path, t["metric"]) + "unknown metric '" + table.metric + "' (known: params, " +
                join(metrics, ", ") + ")");
  if (t["n"]) table.n = whole_field(path, t, "n");
  if (table.n < 0) throw Error(yaml_at(path, t["n"]) + "n " + t["n"].Scalar() + " is negative");
  if (!t["cells"].IsDefined() || !t["cells"].IsSequence())
    throw Error(yaml_at(path, t) + "table " + std::to_string(table.number) + " needs a cells list");
  const auto datasets = dataset_names();
  std::map<std::pair<std::string, std::string>, int> line_of;  // (row, column) -> line
  for (const auto& c : t["cells"]) {
    table.cells.push_back(read_cell(path, c, datasets, table.metric));
    const auto [it, added] =
        line_of.emplace(std::make_pair(table.cells.back().row, table.cells.back().column), c.Mark().line + 1);
    if (!added)
      throw Error(yaml_at(path, c) + "cell (" + table.cells.back().row + ", " + table.cells.back().column +
                  ") of table " + std::to_string(table.number) + " repeats line " + std::to_string(it->second));
  }
  if (t["references"] && !t["references"].IsSequence())
    throw Error(yaml_at(path, t["references"]) + "references must be a list of {row, what}");
  for (const auto& r : t["references"]) {
    if (!r.IsMap() || !r["row"] || !r["what"]) throw Error(yaml_at(path, r) + "a reference is a map {row, what}");
    table.references.push_back({text_field(path, r, "row", ""), text_field(path, r, "what", "")});
  }
  return table;
}

}  // namespace

YAML::Node load_paper_yaml(const std::filesystem::path& path) {
  try {
    return YAML::LoadFile(path.string());
  } catch (const YAML::BadFile&) {
    throw Error("cannot read " + path.string() + ": " + std::strerror(errno));
  } catch (const YAML::Exception& e) {
    throw Error(path.string() + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

std::vector<PaperTable> load_paper(const std::filesystem::path& path) {
  const YAML::Node root = load_paper_yaml(path);
  if (!root.IsMap() || !root["tables"] || !root["tables"].IsSequence())
    throw Error(path.string() + ": expected a 'tables' list of {table, experiment, metric, n, cells}");
  std::vector<PaperTable> tables;
  try {
    for (const auto& t : root["tables"]) tables.push_back(read_table(path, t));
  } catch (const YAML::Exception& e) {
    throw Error(path.string() + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  std::map<std::pair<std::string, std::string>, int> table_of;  // (experiment, metric) -> table number
  for (const auto& table : tables) {
    const auto [it, added] = table_of.emplace(std::make_pair(table.experiment, table.metric), table.number);
    if (!added)
      throw Error(path.string() + ": tables " + std::to_string(it->second) + " and " + std::to_string(table.number) +
                  " both give " + table.metric + " of experiment " + table.experiment);
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
    std::string references;  // what each reference row with runs is, one line each
    for (const auto& reference : table.references) {
      bool shown = false;
      for (const auto& dataset : results.datasets) {
        const Cell ours = make_cell(results, reference.row, dataset);
        if (ours.values.empty()) continue;
        char ours_text[96];
        std::snprintf(ours_text, sizeof ours_text, "%.2f ± %.2f, %zu%s", ours.mean,
                      std::isnan(ours.std) ? 0.0 : ours.std, ours.values.size(), ours.partial ? " †" : "");
        out += "| " + reference.row + " | " + dataset + " | " + ours_text + " | not in the paper | | reference |\n";
        shown = true;
      }
      if (shown) references += "*" + reference.row + "* (not in the paper): " + reference.what + "\n";
    }
    if (!references.empty()) out += "\n" + references;
    out += "\n" + std::to_string(within) + " cells within |Δ| ≤ 2·max(std_ours, std_paper) + 0.5, " +
           std::to_string(outside) + " outside, " + std::to_string(missing) +
           " without runs. † marks partial or subset data: a different protocol than the paper's.\n\n";
  }
  return out;
}

}  // namespace repro
