// repro eval RUN_DIR|RUNS_DIR [KEY=VALUE ...]: evaluate trained runs (their model.pt) without training,
// on their own data or with data settings changed; writes <run>/eval/<name>.json.
#include <spdlog/spdlog.h>

#include <cmath>
#include <iostream>

#include "cli/cli.h"
#include "cli/common.h"
#include "data/registry.h"
#include "run/device.h"
#include "run/eval_run.h"
#include "spec/experiment.h"
#include "spec/run_spec.h"
#include "util/error.h"
#include "util/strings.h"
#include "util/version.h"

namespace repro {

namespace {

struct EvalArguments : TrainedRunArguments {  // targets: run folders, folders of runs, and KEY=VALUE overrides
  std::string split = "test", name, levels;
};

std::string number(const std::optional<double>& value, int digits) {
  return value && std::isfinite(*value) ? fmt::format("{:.{}f}", *value, digits) : std::string("-");
}

// One line per evaluation point: "RUN: test acc 88.12% loss 0.3321 (recorded 88.12%, 0.3321)".
void print_result(const std::filesystem::path& run_dir, const EvalRecord& result) {
  for (const auto& point : result.points) {
    std::string line = run_dir.string() + ": " + point.label + ": " + result.split + " acc " + number(point.acc, 2) +
                       "% loss " + number(point.loss, 4);
    if (result.recorded_epoch)
      line += " (recorded at epoch " + std::to_string(*result.recorded_epoch) + ": " + number(result.recorded_acc, 2) +
              "%, " + number(result.recorded_loss, 4) + ")";
    std::cout << line << "\n";
  }
}

int run_eval(EvalArguments& args) {
  configure_threads(checked_threads(args.threads));
  EvalRequest request;
  request.split = args.split;
  request.name = args.name;
  RunTargets targets = split_run_targets(args.targets);
  request.overrides = std::move(targets.overrides);
  std::vector<std::filesystem::path> folders;
  for (const auto& target : targets.folders)
    for (const auto& folder : find_run_folders(target)) folders.push_back(folder);
  if (!args.levels.empty()) request.levels = parse_axis(args.levels);
  check_eval_request(request);
  if (folders.empty()) throw Error("no run folders (with summary.json) under " + join(args.targets, ", "));
  const bool one_run = folders.size() == 1;
  DataLoader loader(resolve_data_root(args.data_root));
  const torch::Device device = resolve_device(args.device);
  int evaluated = 0, skipped = 0;
  for (const auto& folder : folders) {
    const std::string why = why_not_evaluable(folder);
    if (!why.empty()) {
      if (one_run) throw Error(folder.string() + ": " + why);
      spdlog::warn("{}: skipped: {}", folder.string(), why);
      ++skipped;
      continue;
    }
    print_result(folder, evaluate_run(folder, request, loader, device));
    ++evaluated;
  }
  spdlog::info("{} run(s) evaluated into eval/{}.json{}", evaluated, request.name,
               skipped ? fmt::format(", {} skipped (see above)", skipped) : std::string());
  if (evaluated == 0) throw Error("no run could be evaluated (see the warnings above)");
  return 0;
}

}  // namespace

void add_eval_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<EvalArguments>();
  auto* command = add_trained_run_command(
      app, "eval", "Evaluate trained runs (model.pt) without training, e.g. under noise", *args,
      "Run folders or folders of runs, and data overrides KEY=VALUE (" + eval_override_summary() + ")");
  hinted(command->add_option("--split", args->split, "test | val"), CLI::IsMember({"test", "val"}));
  command->add_option("--name", args->name, "Written to <run>/eval/NAME.json (default: the split, without overrides)");
  command->add_option("--levels", args->levels, "One evaluation per value, e.g. data.noise.level=0,0.05,0.1,0.2");
  add_trained_run_resources(*command, *args);
  command->callback([args, &exit_code] { exit_code = run_eval(*args); });
}

}  // namespace repro
