// repro params SPEC.yaml: parameter counts with a breakdown, without training.
#include <cstdio>
#include <iostream>

#include "cli/cli.h"
#include "cli/common.h"
#include "data/loader.h"
#include "data/registry.h"
#include "models/param_count.h"
#include "report/paper.h"
#include "run/plan.h"
#include "spec/grid.h"
#include "spec/options.h"

namespace repro {

namespace {

// The paper's printed count for a row and column, if a params table of this experiment has it.
const PaperCell* paper_cell(const std::vector<PaperTable>& paper, const std::string& experiment,
                            const PlannedRun& run) {
  for (const auto& table : paper)
    if (table.metric == "params" && table.experiment == experiment)
      for (const auto& cell : table.cells)
        if (cell.row == run.model_config && cell.column == run.dataset) return &cell;
  return nullptr;
}

std::string params_table(const std::vector<PlannedRun>& runs, DataLoader& loader,
                         const std::vector<PaperTable>& paper) {
  const bool compare = !paper.empty();
  std::string out = "| model | dataset | params |" + std::string(compare ? " paper | Δ |" : "") +
                    " embeddings | attention | feed-forward | norms | head |\n|---|---|---|" +
                    (compare ? "---|---|" : "") + "---|---|---|---|---|\n";
  for (const auto& run : one_per_configuration(runs)) {
    torch::manual_seed(0);
    const auto model = build_model(model_options(run.config), loader.model_info(run.dataset, run.config));
    const auto params = count_parameters(*model);
    out += "| " + run.model_config + " | " + run.dataset + " | " + std::to_string(params.total) + " (" +
           format_millions(params.total) + ") |";
    if (compare) {
      const PaperCell* cell = paper_cell(paper, run.experiment, run);
      char delta[32] = "";
      if (cell) std::snprintf(delta, sizeof delta, "%+.2f%%", 100.0 * (params.total - cell->mean) / cell->mean);
      out += " " + (cell ? cell->printed : std::string("—")) + " | " + delta + " |";
    }
    for (const auto& [part, count] : params.parts) out += " " + std::to_string(count) + " |";
    out += "\n";
  }
  return out;
}

}  // namespace

void add_params_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("params", "Parameter count of every model configuration x dataset");
  auto spec = std::make_shared<std::string>();
  auto overrides = std::make_shared<std::vector<std::string>>();
  command->add_option("spec", *spec, "Experiment spec (YAML)")->required();
  auto data_root = std::make_shared<std::string>();
  auto compare = std::make_shared<std::string>();
  command->add_option("overrides", *overrides, "Spec overrides KEY=VALUE");
  command->add_option("--data-root", *data_root,
                      "Dataset folder, for text vocabularies (default $REPRO_DATA, else ./datasets)");
  command->add_option("--compare", *compare, "A paper's numbers (e.g. experiments/paper/dgsa.yaml): its counts and Δ");
  command->callback([spec, overrides, data_root, compare, &exit_code] {
    const Experiment experiment = load_spec(*spec, *overrides, "");
    DataLoader loader(resolve_data_root(*data_root));
    const auto paper = compare->empty() ? std::vector<PaperTable>{} : load_paper(*compare);
    const auto runs = expand_grid(experiment, dataset_catalog());
    validate_plan(runs);  // every model and its cross-key constraints, before any text is tokenized
    std::cout << params_table(runs, loader, paper);
    exit_code = 0;
  });
}

}  // namespace repro
