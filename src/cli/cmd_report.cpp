// repro report RUNS_DIR: tables of mean ± std over seeds from run records.
#include <iostream>

#include "cli/cli.h"
#include "report/paper.h"
#include "report/table.h"
#include "util/files.h"

namespace repro {

void add_report_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("report", "Aggregate run records into mean ± std tables");
  auto dir = std::make_shared<std::string>();
  auto options = std::make_shared<ReportOptions>();
  auto output = std::make_shared<std::string>();
  auto compare = std::make_shared<std::string>();
  command->add_option("runs", *dir, "Folder of run records (an --out folder or one experiment in it)")->required();
  command->add_option("--metric", options->metric, "train_loss | train_acc | val_loss | val_acc | test_loss | test_acc")
      ->check(CLI::IsMember({"train_loss", "train_acc", "val_loss", "val_acc", "test_loss", "test_acc"}));
  command->add_option("--format", options->format, "md | csv")->check(CLI::IsMember({"md", "csv"}));
  command->add_option("-o,--output", *output, "Write the table to this file instead of stdout");
  command->add_option("--compare", *compare, "A paper's numbers (e.g. experiments/paper/dgsa.yaml): ours | paper | Δ");
  command->callback([dir, options, output, compare, &exit_code] {
    std::string text = render_report(*dir, *options);
    if (!compare->empty()) {
      const auto paper = load_paper(*compare);
      for (const auto& results : collect_results(*dir, options->metric))
        text += "\n" + compare_with_paper(results, paper, options->metric);
    }
    if (output->empty())
      std::cout << text;
    else
      write_file_atomic(*output, text);
    exit_code = 0;
  });
}

}  // namespace repro
