// repro params SPEC.yaml: parameter counts with a breakdown, without training. The spec
// as written and each of its profiles are "readings" (alternative settings of one table);
// with --compare, every paper cell is matched against the readings' counts.
#include <cstdio>
#include <iostream>
#include <set>

#include "cli/cli.h"
#include "cli/common.h"
#include "data/loader.h"
#include "data/registry.h"
#include "models/param_count.h"
#include "report/claims/paper.h"
#include "run/plan.h"
#include "spec/grid.h"
#include "spec/options.h"
#include "util/error.h"
#include "util/strings.h"
#include "util/version.h"

namespace repro {

namespace {

constexpr const char* kAsWritten = "spec";  // the reading of the spec without a profile

struct Count {
  std::string reading, model_config, dataset;
  ParamBreakdown params;
};

struct Reading {
  std::string name;
  std::vector<PlannedRun> runs;
};

std::string percent(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%+.2f%%", value);
  return text;
}

// The readings --readings names: "all" = the spec as written, then every profile.
std::vector<std::string> reading_names(const Experiment& experiment, const std::string& wanted) {
  std::vector<std::string> names;
  if (wanted == "all") {
    names.push_back(kAsWritten);
    for (const auto& [name, profile] : experiment.profiles) names.push_back(name);
    return names;
  }
  for (const auto& raw : split(wanted, ',')) {
    const std::string name = trim(raw);
    if (name != kAsWritten && !experiment.profiles.count(name)) {
      std::vector<std::string> known = {kAsWritten};
      for (const auto& [profile, settings] : experiment.profiles) known.push_back(profile);
      throw Error("--readings " + wanted + ": '" + name + "' is not a reading of " + experiment.source_file +
                  " (readings: all, " + join(known, ", ") + ")");
    }
    names.push_back(name);
  }
  return names;
}

// Each reading's grid, cut to --datasets and --rows (empty: all).
std::vector<Reading> plan_readings(const Experiment& spec, const std::vector<std::string>& names,
                                   const std::vector<std::string>& datasets, const std::vector<std::string>& rows) {
  std::vector<Reading> readings;
  for (const auto& name : names) {
    Experiment experiment = spec;
    experiment.choose_profile(name == kAsWritten ? "" : name);
    experiment.select(datasets, rows);
    Reading reading{name, expand_grid(experiment, dataset_catalog())};
    validate_plan(reading.runs);  // every model and its cross-key constraints, before any text is tokenized
    readings.push_back(std::move(reading));
  }
  return readings;
}

// From the options and the dataset's shape: no model is built (tests/test_model.cpp checks the counts against
// built models).
std::vector<Count> count_readings(const std::vector<Reading>& readings, DataLoader& loader) {
  std::vector<Count> counts;
  for (const auto& reading : readings)
    for (const auto& run : one_per_configuration(reading.runs))
      counts.push_back({reading.name, run.model_config, run.dataset,
                        count_parameters(run.options.model, loader.model_info(run.dataset, run.options))});
  return counts;
}

// The params table of the paper for `experiment` (nullptr when it has none).
const PaperTable* paper_table(const std::vector<PaperTable>& paper, const std::string& experiment) {
  for (const auto& table : paper)
    if (table.metric == Metric::Params && table.experiment == experiment) return &table;
  return nullptr;
}

const PaperCell* paper_cell(const PaperTable* table, const Count& count) {
  if (table)
    for (const auto& cell : table->cells)
      if (cell.row == count.model_config && cell.column == count.dataset) return &cell;
  return nullptr;
}

std::string counts_table(const std::vector<Count>& counts, const PaperTable* table, bool compare, bool by_reading) {
  std::string out = std::string(by_reading ? "| reading " : "") + "| model | dataset | params |" +
                    (compare ? " paper | Δ |" : "") + " embeddings | attention | feed-forward | norms | head |\n" +
                    (by_reading ? "|---" : "") + "|---|---|---|" + (compare ? "---|---|" : "") +
                    "---|---|---|---|---|\n";
  for (const auto& count : counts) {
    if (by_reading) out += "| " + count.reading + " ";
    out += "| " + count.model_config + " | " + count.dataset + " | " + std::to_string(count.params.total) + " (" +
           format_millions(count.params.total) + ") |";
    if (compare) {
      const PaperCell* cell = paper_cell(table, count);
      out += " " + (cell ? cell->printed : std::string("—")) + " | " +
             (cell ? percent(match_printed(count.params.total, cell->mean, cell->printed).delta_percent) : "") + " |";
    }
    for (const auto& [part, n] : count.params.parts) out += " " + std::to_string(n) + " |";
    out += "\n";
  }
  return out;
}

// "imdb_vocab: datasets imdb; text.vocab_source=file" for each reading.
std::string readings_list(const Experiment& spec, const std::vector<Reading>& readings) {
  std::string out = "Readings (the spec as written, then its profiles):\n\n";
  for (const auto& reading : readings) {
    if (reading.name == kAsWritten) {
      out += "- `spec`: " + spec.source_file + " as written\n";
      continue;
    }
    const auto& profile = spec.profiles.at(reading.name);
    std::vector<std::string> parts;
    if (!profile.datasets.empty()) parts.push_back("datasets " + join(profile.datasets, ", "));
    for (const auto& setting : profile.settings) parts.push_back(setting.key + "=" + setting.raw);
    out += "- `" + reading.name + "`: " + (parts.empty() ? std::string("no changes") : join(parts, "; ")) + "\n";
  }
  return out + "\n";
}

std::string match_text(const Count& count, const PrintedMatch& match) {
  std::string rules;
  if (match.within_1_percent) rules = "within 1%";
  if (match.within_rounding) rules += std::string(rules.empty() ? "" : ", ") + "rounds to the printed number";
  return count.reading + " " + format_millions(count.params.total) + " (" + percent(match.delta_percent) + ", " +
         rules + ")";
}

// For each paper cell: the readings that match it, or "no reading within 1%", and the closest reading.
std::string cell_summary(const std::vector<Count>& counts, const PaperTable& table) {
  std::string out =
      "### Paper cells (Table " + std::to_string(table.number) + ") and the readings that match them\n\n" +
      "A reading matches a cell when its count is within 1% of the printed number, or rounds to it "
      "(within half a unit of the printed last digit: 25.7M covers 25.65M to 25.75M, 12M covers 11.5M to "
      "12.5M).\n\n| model | dataset | paper | matching readings | closest reading |\n|---|---|---|---|---|\n";
  int matched = 0, counted = 0;
  std::vector<std::string> unexplained;
  for (const auto& cell : table.cells) {
    std::vector<std::string> matches;
    const Count* closest = nullptr;
    double closest_delta = 0;
    for (const auto& count : counts) {
      if (count.model_config != cell.row || count.dataset != cell.column) continue;
      const PrintedMatch match = match_printed(count.params.total, cell.mean, cell.printed);
      if (match.matches()) matches.push_back(match_text(count, match));
      if (!closest || std::abs(match.delta_percent) < std::abs(closest_delta)) {
        closest = &count;
        closest_delta = match.delta_percent;
      }
    }
    out += "| " + cell.row + " | " + cell.column + " | " + cell.printed + " | ";
    if (!closest) {
      out += "not counted (no reading has this model and dataset) | — |\n";
      continue;
    }
    ++counted;
    if (matches.empty()) unexplained.push_back(cell.row + " × " + cell.column);
    matched += matches.empty() ? 0 : 1;
    out += (matches.empty() ? std::string("no reading within 1%") : join(matches, "; ")) + " | " + closest->reading +
           " " + format_millions(closest->params.total) + " (" + percent(closest_delta) + ") |\n";
  }
  out += "\n" + std::to_string(matched) + " of " + std::to_string(counted) +
         " counted cells are matched by at least one reading; " +
         (unexplained.empty() ? std::string("every counted cell is explained.")
                              : "no reading explains " + join(unexplained, ", ") + ".") +
         "\n";
  return out;
}

std::string header(const std::string& command, const std::string& data_root) {
  return "## repro params " + command + "\n\nrepro " + repro_version() + " (git " + git_commit() + "), " + utc_now() +
         ", data root " + data_root + "\n\n";
}

}  // namespace

void add_params_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("params", "Parameter count of every model configuration x dataset");
  auto spec = std::make_shared<std::string>();
  auto overrides = std::make_shared<std::vector<std::string>>();
  command->add_option("spec", *spec, "Experiment spec (YAML)")->required();
  auto data_root = std::make_shared<std::string>();
  auto compare = std::make_shared<std::string>();
  auto readings = std::make_shared<std::string>("all");
  command->add_option("overrides", *overrides, "Spec overrides KEY=VALUE");
  command->add_option("--data-root", *data_root,
                      "Dataset folder, for text vocabularies (default $REPRO_DATA, else ./datasets)");
  command->add_option("--compare", *compare,
                      "A paper's numbers (e.g. experiments/paper/dgsa.yaml): its counts, Δ, and which readings match "
                      "each of its cells");
  auto datasets = std::make_shared<std::vector<std::string>>();
  auto rows = std::make_shared<std::vector<std::string>>();
  add_selection_options(*command, *datasets, *rows);
  command->add_option("--readings", *readings,
                      "Which settings to count: all (default: the spec as written, then each profile) or a list of "
                      "'spec' and profile names");
  command->callback([spec, overrides, data_root, compare, readings, datasets, rows, &exit_code] {
    const Experiment experiment = load_spec(*spec, *overrides, "");
    const auto root = resolve_data_root(*data_root);
    DataLoader loader(root);
    const auto paper = compare->empty() ? std::vector<PaperTable>{} : read_paper_file(*compare).tables;
    const auto planned = plan_readings(experiment, reading_names(experiment, *readings), *datasets, *rows);
    const auto counts = count_readings(planned, loader);
    const PaperTable* table = paper_table(paper, experiment.name);
    const bool by_reading = planned.size() > 1;
    std::string words = *spec;
    for (const auto& o : *overrides) words += " " + o;
    if (!compare->empty()) words += " --compare " + *compare;
    if (*readings != "all") words += " --readings " + *readings;
    std::cout << header(words, root.string());
    if (by_reading) std::cout << readings_list(experiment, planned);
    std::cout << counts_table(counts, table, !compare->empty(), by_reading);
    if (table) std::cout << "\n" << cell_summary(counts, *table);
    exit_code = 0;
  });
}

}  // namespace repro
