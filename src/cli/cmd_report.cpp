// repro report RUNS_DIR: tables of mean ± std over seeds from run records.
#include <iostream>

#include "cli/cli.h"
#include "report/eval_table.h"
#include "report/paper.h"
#include "report/table.h"
#include "util/files.h"
#include "util/strings.h"

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
  auto eval = std::make_shared<std::string>();
  command->add_option("--eval", *eval,
                      "Tabulate the evaluations of repro eval (<run>/eval/NAME.json) instead: NAME[,NAME...] side by "
                      "side, one column per dataset and level (e.g. a robustness table)");
  command->callback([dir, options, output, compare, eval, &exit_code] {
    std::string text = eval->empty() ? render_report(*dir, *options)  // eval: src/report/eval_table.h
                                     : render_eval_report(*dir, split(*eval, ','), options->metric);
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
