// repro collect FROM TO: the records of every finished run under an --out folder copied into a results folder for
// committing (report/records/copy_records.h), plan.json merged with the one already there.
#include <spdlog/spdlog.h>

#include <iostream>

#include "cli/cli.h"
#include "report/records/copy_records.h"
#include "report/records/read_record.h"

namespace repro {

void add_collect_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand(
      "collect",
      "Copy the records of finished runs (no checkpoints or weights) from an --out folder into a results "
      "folder, merging plan.json");
  auto from = std::make_shared<std::string>(), to = std::make_shared<std::string>();
  command->add_option("from", *from, "An --out folder, or a folder below it (e.g. runs/table2/paper)")->required();
  command->add_option("to", *to, "The results folder (e.g. results/table2/paper); created when absent")->required();
  command->callback([from, to, &exit_code] {
    const CollectTally tally = collect_records(*from, *to, record_problem);  // every record checked as report does
    for (const auto& line : tally.skipped) spdlog::warn("{}", line);
    for (const auto& line : tally.refused) spdlog::error("{}", line);
    std::cout << "repro collect: " << describe_tally(tally) << " (" << *from << " -> " << *to << ")\n";
    exit_code = tally.refused.empty() ? 0 : 1;
  });
}

}  // namespace repro
