// repro run SPEC.yaml [key=value ...]: train and evaluate every run of the spec's grid.
#include "cli/cli.h"
#include "cli/common.h"

namespace repro {

void add_run_command(CLI::App& app, int& exit_code, RunExtension* extension) {
  auto* command = app.add_subcommand("run", "Train every run of a spec's grid, then print its table");
  auto args = std::make_shared<RunArguments>();
  args->extension = extension;
  add_run_arguments(*command, *args);
  command->callback([args, &exit_code] { exit_code = run_command(*args, [&] { return load_with_overrides(*args); }); });
}

}  // namespace repro
