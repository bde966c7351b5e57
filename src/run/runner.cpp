#include "run/runner.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <functional>
#include <iostream>

#include "data/loader.h"
#include "data/registry.h"
#include "run/device.h"
#include "run/plan.h"
#include "run/tensorboard_log.h"
#include "util/error.h"

namespace repro {

namespace {

// What the plan would do that the user may not expect, said before anything trains (also by --dry-run).
void warn_about_plan(const Experiment& experiment, const std::vector<PlannedRun>& runs) {
  for (const auto& pair : same_configurations(runs))
    spdlog::warn("model configurations {} resolve to the same settings: the same model would train twice", pair);
  const std::string& baseline = experiment.report_baseline;
  if (!baseline.empty() && !experiment.row_selected(baseline))
    spdlog::warn(
        "report.baseline '{}' is not among --rows: the Welch table compares with it only where its runs "
        "are in the folder already (repro report --baseline ROW chooses another)",
        baseline);
}

// What a real run would stop at, said as a warning by --dry-run.
void warn_if_refused(const std::function<void()>& check) {
  try {
    check();
  } catch (const Error& e) {  // said before anything starts, so the user can choose another --out or a sweep
    spdlog::warn("a real run would stop here: {}", e.what());
  }
}

// Refuses a plan whose model's training state does not fit the memory of `device` (nothing allocated), counting the
// lanes that will train: --lanes K, or fewer when fewer runs are left to train (checked: finished ones are not).
void check_memory(const Plan& plan, const RunnerOptions& options) {
  const int lanes = static_cast<int>(
      std::min<size_t>(std::max(1, options.parallel.lanes), std::max<size_t>(1, plan.to_train().size())));
  if (const auto refusal = memory_refusal(plan.runs, training_memory(options.device), lanes)) throw Error(*refusal);
}

// The datasets the plan's runs not finished read, each once, in plan order.
std::vector<std::string> datasets_to_read(const Plan& plan) {
  std::vector<std::string> datasets;
  for (const size_t position : plan.to_train())
    if (std::find(datasets.begin(), datasets.end(), plan.runs[position].dataset) == datasets.end())
      datasets.push_back(plan.runs[position].dataset);
  return datasets;
}

// The data pre-flight, once, before any record is written: the root is a folder and every dataset the runs to train
// read has something there (it wrote one failed record per run, each repeating a 600-character message).
void check_data(const Plan& plan, const std::string& data_root) {
  check_data_root(data_root);
  check_datasets_present(data_root, datasets_to_read(plan));
}

// What would stop a run on this machine (`check`), said as a warning where the nodes check it themselves.
void check_or_warn(PlanChecks checks, const std::string& why, const std::function<void()>& check) {
  if (checks == PlanChecks::Refuse) return check();
  try {
    check();
  } catch (const Error& e) {
    spdlog::warn("{}: {}", why, e.what());
  }
}

// The plan of the command, with what it would do that the user may not expect said once (--index's single run of a
// --jobs child says nothing: its parent did).
Plan planned(const Experiment& experiment, const RunnerOptions& options) {
  Plan plan = plan_grid(experiment, options.dry_run ? std::nullopt : options.only_index);
  if (!options.only_index || options.dry_run) warn_about_plan(experiment, plan.runs);
  return plan;
}

// --dry-run: the plan listed with what a real run would stop at; nothing written.
int describe_dry_run(const Experiment& experiment, const RunnerOptions& options) {
  Plan plan = planned(experiment, options);
  warn_if_refused([&] { check_plan(plan, options.out); });
  warn_if_refused([&] { check_memory(plan, options); });
  warn_if_refused([&] { check_data(plan, options.data_root); });
  DataLoader loader(resolve_data_root(options.data_root));
  std::cout << describe_plan(plan.runs, options.out, loader);
  return 0;
}

}  // namespace

Plan prepare_plan(const Experiment& experiment, const RunnerOptions& options, PlanChecks checks) {
  Plan plan = planned(experiment, options);
  check_plan(plan, options.out);  // throws on a folder of another spec, before anything is written
  check_or_warn(checks, "the tasks will stop before training on a node with no more memory than this machine",
                [&] { check_memory(plan, options); });  // before anything is allocated, for the runs left to train
  // The runs still to train: finished ones read no data. The nodes' data root is checked where this machine sees it.
  std::error_code error;
  if (checks == PlanChecks::Refuse ||
      (!options.data_root.empty() && std::filesystem::is_directory(options.data_root, error)))
    check_or_warn(checks, "the tasks will stop before training if the nodes see this folder as this machine does",
                  [&] { check_data(plan, options.data_root); });
  write_plan(experiment, plan.runs, options.out);  // the whole grid: runs started one by one still make one table
  repair_event_files(plan, options.out);           // a finished run's damaged event file, written anew
  return plan;
}

int run_experiment(const Experiment& experiment, const RunnerOptions& options) {
  resolve_device(options.device);  // --device cuda without a GPU: refused by the dry run too
  if (options.dry_run) return describe_dry_run(experiment, options);
  const Plan plan = prepare_plan(experiment, options, PlanChecks::Refuse);
  if (options.parallel.jobs > 1 && !options.only_index) return children_executor(options)->execute(plan);
  return in_process_executor(options)->execute(plan);
}

int run_task(const std::filesystem::path& tasks_file, int64_t index, const RunnerOptions& options) {
  Plan plan = plan_of_task(tasks_file, index, options.out);
  check_memory(plan, options);  // this node's memory and data, which the launching machine could not know
  check_data(plan, options.data_root);
  return in_process_executor(options)->execute(plan);
}

}  // namespace repro
