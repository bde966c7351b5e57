// repro sweep SPEC.yaml --seeds 0-4 --set KEY=V1,V2 ...: the run engine with the
// grid's seeds and axes given on the command line.
#include "cli/cli.h"
#include "cli/common.h"

namespace repro {

void add_sweep_command(CLI::App& app, int& exit_code, RunExtension* extension) {
  auto* command = app.add_subcommand("sweep", "Run a spec over seeds and KEY=V1,V2 axes given here");
  auto args = std::make_shared<RunArguments>();
  auto seeds = std::make_shared<std::string>();
  auto axes = std::make_shared<std::vector<std::string>>();
  args->extension = extension;
  add_run_arguments(*command, *args);
  auto* seeds_option = command->add_option("--seeds", *seeds, "Seeds, e.g. 0-4 or 0,2,5 (replaces the spec's)");
  command->add_option("--set", *axes, "A sweep axis KEY=V1,V2,... or KEY=[V1,V2,...] (repeatable); list-valued keys take each value in [..]: "
                      "train.betas=[0.9,0.98],[0.9,0.999]")
      ->allow_extra_args(false);  // one axis per --set: a KEY=VALUE after it is a setting
  command->callback([args, seeds, seeds_option, axes, &exit_code] {
    const bool sweep_arguments = seeds_option->count() > 0 || !axes->empty();
    exit_code = run_command(
        *args,
        [&] {
          Experiment experiment = load_with_overrides(*args);
          // --seeds given, even as '': an empty list is an error, not the spec's seeds
          apply_sweep_arguments(experiment,
                                seeds_option->count() > 0 ? std::optional<std::string>(*seeds) : std::nullopt, *axes);
          return experiment;
        },
        sweep_arguments);
  });
}

}  // namespace repro
