#include "run/train_run.h"

#include <spdlog/spdlog.h>

#include <memory>
#include <optional>

#include "models/param_count.h"
#include "run/device.h"
#include "run/model_file.h"
#include "run/run_log.h"
#include "run/summary.h"
#include "run/tensorboard_log.h"
#include "train/precision.h"
#include "train/trainer.h"
#include "util/error.h"
#include "util/files.h"
#include "util/sha256.h"
#include "util/cpu_kernels.h"
#include "util/version.h"

namespace repro {

bool CommandState::first_time(const std::string& text) {
  std::lock_guard<std::mutex> lock(said_mutex_);
  return said_.insert(text).second;
}

void CommandState::with_said(const std::function<void(std::set<std::string>&)>& use) {
  std::lock_guard<std::mutex> lock(said_mutex_);
  use(said_);
}

namespace {

// The trainer reports its history and step rows; the run folder's metrics.csv, steps.csv and TensorBoard event
// file show them (the CSV files rewritten from the checkpoint's rows on a start, so a stale file beside no
// checkpoint never survives; the event file opened when the trainer starts, continued after a SessionLog START
// on a resume). The trainer stops at a signal, and when another lane stops the command.
// `spec_yaml`: the run's spec.resolved.yaml as it is on disk (a resume keeps the file it started with), which the
// event file shows as its "spec" text.
TrainHooks record_hooks(const PlannedRun& run, const RunFolder& folder, const std::string& spec_yaml,
                        CommandState& command) {
  TrainHooks hooks;
  // The event file, opened when the trainer starts: continued from the checkpoint's step on a resume.
  const auto events = std::make_shared<std::unique_ptr<TensorBoardLog>>();
  if (run.options.train.tensorboard && event_files_available())
    hooks.started = [events, path = folder.events_path(), yaml = spec_yaml](std::optional<int64_t> at) {
      *events = std::make_unique<TensorBoardLog>(path, yaml, at);
    };
  else
    std::filesystem::remove(folder.events_path());
  const std::string no_events =
      "train.tensorboard: this build of repro has no TensorBoard support (configure with "
      "-DREPRO_WITH_TENSORBOARD=ON; needs libprotobuf-dev, protobuf-compiler, libboost-dev): no event "
      "files; steps.csv and metrics.csv hold the same numbers";
  if (run.options.train.tensorboard && !event_files_available() && command.first_time(no_events))
    spdlog::warn("{}", no_events);
  hooks.history_changed = [metrics = folder.metrics_path(), events](const std::vector<EpochRow>& history) {
    if (history.empty())
      std::filesystem::remove(metrics);
    else
      write_file_atomic(metrics, metrics_csv(history));
    if (*events) (*events)->show_history(history);
  };
  hooks.steps_changed = [steps_path = folder.steps_path(), events](const std::vector<StepRow>& steps) {
    if (steps.empty())
      std::filesystem::remove(steps_path);
    else
      write_file_atomic(steps_path, steps_csv(steps));
    if (*events) (*events)->show_steps(steps);
  };
  hooks.step_logged = [events](const StepRow& row) {
    if (*events) (*events)->add_step(row);
  };
  hooks.interrupt_requested = [&command] { return interrupt_requested() || command.stop.load(); };
  return hooks;
}

// The model's initial weights: LibTorch's initialisers draw from its default CPU generator, seeded here from the
// run's seed. Lanes build one model at a time, so that no other draw falls between the seed and the build (their
// training draws come from each run's own generators: data/random.h).
ClassifierPtr build_seeded_model(const ModelOptions& options, const DatasetInfo& info, int64_t seed) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  auto generator = at::detail::getDefaultCPUGenerator();
  {
    std::lock_guard<std::mutex> seed_lock(generator.mutex());
    generator.set_current_seed(static_cast<uint64_t>(seed));  // torch::manual_seed's CPU part
  }
  return build_model(options, info);
}

}  // namespace

RunState train_run(const RunAt& at, CommandState& command, Progress& progress) {
  const PlannedRun& run = at.run;
  const RunFolder& folder = at.folder;
  const int swept = sweep_stale_temp_files(folder.dir());  // left by a killed or failed writer
  // Written when the run starts; a resume keeps the file it started with (the plan check found its settings equal
  // to this plan's: older repro versions listed keys the run does not read), and model.pt and the event file's
  // "spec" text are that file's. (A link in its place is replaced by the file, as every record file is.)
  std::error_code ec;
  if (!std::filesystem::is_regular_file(std::filesystem::symlink_status(folder.spec_path(), ec)))
    write_file_atomic(folder.spec_path(), run.resolved_yaml());
  const std::string spec_yaml = read_regular_file(folder.spec_path(), kSpecBytes, "a run's spec.resolved.yaml");
  RunLog log(folder.log_path(), at.label);
  if (swept > 0) spdlog::info("removed {} stale temporary file(s) in {}", swept, folder.dir().string());
  spdlog::info("run {}: {} on {}, seed {} -> {}", at.position + 1, run.model_config, run.dataset, run.seed,
               folder.dir().string());
  if (command.device.is_cpu() && !blas_kernels_text().empty()) spdlog::info("BLAS: OpenBLAS {}", blas_kernels_text());
  if (command.device.is_cpu()) spdlog::info("CPU kernels: {}", aten_onednn_text(cpu_kernels_in_force()));
  command.with_said(
      [&](std::set<std::string>& said) { warn_if_cpu_bf16_slower(run.options.train.precision, command.device, said); });
  const std::shared_ptr<const RunData> data = command.data.run_data(run.dataset, run.options);
  for (const auto& note : data->notes) {  // each data note once per command on the console, in every log.txt
    if (command.first_time(note))
      spdlog::warn("{}", note);
    else
      log.warn_file_only(note);
  }
  const ClassifierPtr model = build_seeded_model(run.options.model, data->info, run.seed);
  const ParamBreakdown params = count_parameters(*model);
  TrainContext context{run,
                       *data,
                       command.device,
                       folder.checkpoint_path(),
                       progress,
                       at.position,
                       record_hooks(run, folder, spec_yaml, command),
                       command.options.observer,
                       command.options.checkpoint_seconds};
  const TrainOptions& train_settings = run.options.train;
  const ModelFileInfo owner{0, "", run.key(), sha256_file(folder.spec_path())};
  context.hooks.model_changed = keep_model_hook(model_file_path(folder.dir()), train_settings.save_model,
                                                train_settings.select, data->val.size() > 0, owner);
  const TrainOutcome outcome = train(*model, context);
  command.steps_made += outcome.steps_this_start;
  if (outcome.status == RunState::Interrupted) return outcome.status;
  if (outcome.status == RunState::Diverged) spdlog::error("run diverged: {}", outcome.message);
  RunRecord summary = make_summary(run, outcome, *data, params, environment_record(command.device, command.lanes));
  summary.model_file = model_file_record(folder.dir());  // model.pt's epoch, or none
  write_run_record(folder.summary_path(), summary);
  std::filesystem::remove(folder.checkpoint_path());
  return outcome.status;
}

void record_failure(const RunAt& at, const CommandState& command, const std::exception& e) {
  spdlog::error("run {} failed: {}", at.folder.dir().string(), error_text(e));  // no LibTorch trace on stderr
  append_file(at.folder.log_path(), "run failed: " + std::string(e.what()) + "\n");
  write_run_record(at.folder.summary_path(),
                   failure_record(at.run, error_text(e), environment_record(command.device, command.lanes)));
}

}  // namespace repro
