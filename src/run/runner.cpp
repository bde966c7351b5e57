#include "run/runner.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <map>

#include "data/loader.h"
#include "data/registry.h"
#include "models/param_count.h"
#include "report/table.h"
#include "run/device.h"
#include "run/plan.h"
#include "run/summary.h"
#include "train/trainer.h"
#include "util/error.h"
#include "util/files.h"

namespace repro {

namespace {

// Sends log lines to the console and to the run's log.txt while alive.
class RunLog {
 public:
  explicit RunLog(const std::filesystem::path& path) : previous_(spdlog::default_logger()) {
    auto file_sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(path.string(), /*truncate=*/false);
    file_sink->set_pattern("[%Y-%m-%d %H:%M:%S] [%l] %v");
    std::vector<spdlog::sink_ptr> sinks = previous_->sinks();
    sinks.push_back(file_sink);
    auto logger = std::make_shared<spdlog::logger>("run", sinks.begin(), sinks.end());
    logger->set_level(previous_->level());
    spdlog::set_default_logger(logger);
  }
  ~RunLog() { spdlog::set_default_logger(previous_); }

 private:
  std::shared_ptr<spdlog::logger> previous_;
};

std::string execute_one(const PlannedRun& run, int64_t position, const RunFolder& folder, DataLoader& loader,
                        torch::Device device, Progress& progress, const RunnerOptions& options) {
  write_file_atomic(folder.spec_path(), run.resolved_yaml());
  RunLog log(folder.log_path());
  spdlog::info("run {}: {} on {}, seed {} -> {}", position + 1, run.model_config, run.dataset, run.seed,
               folder.dir().string());
  const RunData data = loader.run_data(run.dataset, run.config);
  for (const auto& note : data.notes) spdlog::warn("{}", note);
  torch::manual_seed(static_cast<uint64_t>(run.seed));
  const ClassifierPtr model = build_model(model_options(run.config), data.info);
  const ParamBreakdown params = count_parameters(*model);
  TrainContext context{run, data, device, folder, progress, position, options.stop_after_epoch, options.kill_at_step};
  const TrainOutcome outcome = train(*model, context);
  if (outcome.status == "stopped") return outcome.status;
  if (outcome.status == "diverged") spdlog::error("run diverged: {}", outcome.message);
  write_file_atomic(folder.summary_path(),
                    make_summary(run, outcome, data, params, environment_record(device)).dump(2) + "\n");
  std::filesystem::remove(folder.checkpoint_path());
  return outcome.status;
}

}  // namespace

int run_experiment(const Experiment& experiment, const RunnerOptions& options) {
  const std::vector<PlannedRun> runs = expand_grid(experiment);
  if (options.dry_run) {
    DataLoader loader(resolve_data_root(options.data_root));
    std::cout << describe_plan(runs, options.out, loader);
    return 0;
  }
  const std::vector<PlanStatus> statuses = check_plan(runs, options.out);  // throws on changed specs
  write_plan(experiment, runs, options.out);
  const torch::Device device = resolve_device(options.device);
  DataLoader loader(resolve_data_root(options.data_root));
  Progress progress(static_cast<int64_t>(runs.size()), options.live_progress);
  int failures = 0, skipped = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunFolder folder(options.out / runs[i].relative_dir());
    if (statuses[i] == PlanStatus::Finished) {
      ++skipped;
      continue;
    }
    std::string status;
    try {
      status = execute_one(runs[i], static_cast<int64_t>(i), folder, loader, device, progress, options);
    } catch (const Error&) {
      throw;  // a problem with the spec or the data: stop everything
    } catch (const std::exception& e) {
      status = "failed";
      spdlog::error("run {} failed: {}", folder.dir().string(), e.what());
      nlohmann::json failed = {{"status", "failed"},
                               {"message", e.what()},
                               {"experiment", runs[i].experiment},
                               {"model_config", runs[i].model_config},
                               {"row_index", runs[i].row_index},
                               {"dataset", runs[i].dataset},
                               {"seed", runs[i].seed},
                               {"environment", environment_record(device)},
                               {"git_commit", environment_record(device).at("git_commit")}};
      write_file_atomic(folder.summary_path(), failed.dump(2) + "\n");
    }
    progress.end_run();
    if (status == "stopped") return 3;
    if (status == "failed") ++failures;
  }
  if (skipped > 0) spdlog::info("{} of {} runs were already finished and were skipped", skipped, runs.size());
  const std::filesystem::path experiment_dir = options.out / experiment.folder();
  const std::string table = render_report(experiment_dir, ReportOptions{});
  write_file_atomic(experiment_dir / "table.md", table);
  std::cout << table;
  return failures > 0 ? 1 : 0;
}

}  // namespace repro
