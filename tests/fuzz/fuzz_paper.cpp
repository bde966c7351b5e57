// Paper files (experiments/paper/*.yaml): read_paper_file (tables, claims, ledger), then compare_with_paper
// against results holding one complete run for every cell the file names, then the protocol ledger
// (ledger_report).
#include <cstdint>
#include <string>

#include "fuzz_common.h"
#include "report/claims/ledger.h"
#include "report/claims/paper.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace repro;
  const auto path = fuzz::fresh_scratch() / "paper.yaml";
  fuzz::write_bytes(path, std::string(reinterpret_cast<const char*>(data), size));
  fuzz::expect_clean("paper", [&] {
    const PaperFile file = read_paper_file(path);
    const auto& tables = file.tables;
    for (const auto& table : tables) {
      ExperimentResults results{table.experiment, {}, {}, {}};
      results.metric = table.metric;
      for (const auto& cell : table.cells) {
        RunResult run;
        run.model_config = cell.row;
        run.dataset = cell.column;
        run.state = RunState::Complete;
        run.value = 50;
        results.runs.push_back(run);
        results.model_configs.push_back(cell.row);
        results.datasets.push_back(cell.column);
      }
      compare_with_paper(results, tables);
    }
    for (const auto& table : tables) ledger_report(table.experiment, "paper", table.experiment, file.ledger, path);
  });
  return 0;
}
