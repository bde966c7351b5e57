#include "run/executor.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <map>
#include <optional>
#include <set>

#include "data/loader.h"
#include "data/registry.h"
#include "models/param_count.h"
#include "run/device.h"
#include "run/lock.h"
#include "run/model_file.h"
#include "run/plan.h"
#include "record/folder.h"
#include "run/slurm.h"
#include "run/summary.h"
#include "run/tensorboard_log.h"
#include "spec/options.h"
#include "train/precision.h"
#include "train/trainer.h"
#include "util/error.h"
#include "util/files.h"
#include "util/sha256.h"
#include "util/strings.h"
#include "util/version.h"

namespace repro {

namespace {

// Sends log lines to the console and to the run's log.txt while alive.
class RunLog {
 public:
  explicit RunLog(const std::filesystem::path& path) : previous_(spdlog::default_logger()) {
    refuse_link(path);  // spdlog appends through whatever the path names
    auto file_sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(path.string(), /*truncate=*/false);
    file_sink->set_pattern("[%Y-%m-%d %H:%M:%S] [%l] %v");
    std::vector<spdlog::sink_ptr> sinks = previous_->sinks();
    sinks.push_back(file_sink);
    auto logger = std::make_shared<spdlog::logger>("run", sinks.begin(), sinks.end());
    logger->set_level(previous_->level());
    logger->flush_on(spdlog::level::trace);  // every line reaches log.txt before a kill can lose it
    spdlog::set_default_logger(logger);
    file_only_ = std::make_shared<spdlog::logger>("run-file", file_sink);
    file_only_->flush_on(spdlog::level::trace);
  }
  ~RunLog() { spdlog::set_default_logger(previous_); }

  // A warning the console has shown already in this command: log.txt still gets it.
  void warn_file_only(const std::string& text) { file_only_->warn("{}", text); }

 private:
  std::shared_ptr<spdlog::logger> previous_, file_only_;
};

// The trainer reports its history and step rows; the run folder's metrics.csv, steps.csv and TensorBoard event
// file show them (the CSV files rewritten from the checkpoint's rows on a start, so a stale file beside no
// checkpoint never survives; the event file opened when the trainer starts, continued after a SessionLog START
// on a resume). `said`: the warnings this command has shown (each once per command).
TrainHooks record_hooks(const PlannedRun& run, const RunFolder& folder, std::set<std::string>& said) {
  TrainHooks hooks;
  // The event file, opened when the trainer starts: continued from the checkpoint's step on a resume.
  const auto events = std::make_shared<std::unique_ptr<TensorBoardLog>>();
  if (run.options.train.tensorboard && event_files_available())
    hooks.started = [events, path = folder.events_path(), yaml = run.resolved_yaml()](std::optional<int64_t> at) {
      *events = std::make_unique<TensorBoardLog>(path, yaml, at);
    };
  else
    std::filesystem::remove(folder.events_path());
  const std::string no_events =
      "train.tensorboard: this build of repro has no TensorBoard support (configure with "
      "-DREPRO_WITH_TENSORBOARD=ON; needs libprotobuf-dev, protobuf-compiler, libboost-dev): no event "
      "files; steps.csv and metrics.csv hold the same numbers";
  if (run.options.train.tensorboard && !event_files_available() && said.insert(no_events).second)
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
  hooks.interrupt_requested = [] { return interrupt_requested(); };
  return hooks;
}

// One run of the command: where it is in the plan and its folder.
struct RunAt {
  const PlannedRun& run;
  int64_t position;  // in the plan, 0-based
  RunFolder folder;
};

// What the runs of one command share: its options, the device, the data loader and the progress line, and what
// the command has done so far.
struct Command {
  const RunnerOptions& options;
  torch::Device device;
  DataLoader loader;
  Progress progress;
  int64_t steps_made = 0;      // optimizer steps in this process, for the requeue guard
  std::set<std::string> said;  // warnings shown on the console already: each once per command (data notes too)
};

RunState execute_one(const RunAt& at, Command& command) {
  const PlannedRun& run = at.run;
  const RunFolder& folder = at.folder;
  const int swept = sweep_stale_temp_files(folder.dir());  // left by a killed or failed writer
  write_file_atomic(folder.spec_path(), run.resolved_yaml());
  RunLog log(folder.log_path());
  if (swept > 0) spdlog::info("removed {} stale temporary file(s) in {}", swept, folder.dir().string());
  spdlog::info("run {}: {} on {}, seed {} -> {}", at.position + 1, run.model_config, run.dataset, run.seed,
               folder.dir().string());
  if (command.device.is_cpu() && !blas_kernels_text().empty()) spdlog::info("BLAS: OpenBLAS {}", blas_kernels_text());
  warn_if_cpu_bf16_slower(run.options.train.precision, command.device, command.said);
  const RunData data = command.loader.run_data(run.dataset, run.options);
  for (const auto& note : data.notes) {  // each data note once per command on the console, in every log.txt
    if (command.said.insert(note).second)
      spdlog::warn("{}", note);
    else
      log.warn_file_only(note);
  }
  torch::manual_seed(static_cast<uint64_t>(run.seed));
  const ClassifierPtr model = build_model(run.options.model, data.info);
  const ParamBreakdown params = count_parameters(*model);
  TrainContext context{run,
                       data,
                       command.device,
                       folder.checkpoint_path(),
                       command.progress,
                       at.position,
                       record_hooks(run, folder, command.said),
                       command.options.observer,
                       command.options.checkpoint_seconds};
  const TrainOptions& train_settings = run.options.train;
  const ModelFileInfo owner{0, "", run.key(),
                            sha256_hex(run.resolved_yaml())};
  context.hooks.model_changed = keep_model_hook(model_file_path(folder.dir()), train_settings.save_model,
                                                train_settings.select, data.val.size() > 0, owner);
  const TrainOutcome outcome = train(*model, context);
  command.steps_made += outcome.steps_this_start;
  if (outcome.status == RunState::Interrupted) return outcome.status;
  if (outcome.status == RunState::Diverged) spdlog::error("run diverged: {}", outcome.message);
  RunRecord summary = make_summary(run, outcome, data, params, environment_record(command.device));
  summary.model_file = model_file_record(folder.dir());  // model.pt's epoch, or none
  write_run_record(folder.summary_path(), summary);
  std::filesystem::remove(folder.checkpoint_path());
  return outcome.status;
}

// Records a run that threw as `failed` with its one-line reason (the full text, trace included, in log.txt).
void record_failure(const PlannedRun& run, const RunFolder& folder, torch::Device device, const std::exception& e) {
  spdlog::error("run {} failed: {}", folder.dir().string(), error_text(e));  // no LibTorch trace on stderr
  append_file(folder.log_path(), "run failed: " + std::string(e.what()) + "\n");
  write_run_record(folder.summary_path(), failure_record(run, error_text(e), environment_record(device)));
}

// What became of the runs of a plan, for the closing log lines and the exit code.
struct Tally {
  int finished_before = 0;     // skipped: complete or diverged when the plan was checked
  int finished_elsewhere = 0;  // skipped: another process finished it while this one worked
  int failed = 0;
  int not_started = 0;            // --time-limit: expected to take longer than the time left
  std::vector<std::string> held;  // skipped: "folder (held by host:pid)"
};

// Claims a run by its folder's lock and re-checks the folder under it (another process may have finished the
// run, or written a run of another spec there, since the plan was checked). nullopt: skip the run.
std::optional<RunLock> claim(const PlannedRun& run, int64_t position, const RunFolder& folder,
                             const std::filesystem::path& out, Tally& tally) {
  std::optional<RunLock> lock = RunLock::try_acquire(folder.dir());
  if (!lock) {
    const auto holder = RunLock::holder(folder.dir());
    const std::string who = holder ? holder->describe() : "another process";
    spdlog::info("run {}: {} is held by {}: skipped here (it is being trained there)", position + 1,
                 folder.dir().string(), who);
    tally.held.push_back(folder.dir().string() + " (held by " + who + ")");
    return std::nullopt;
  }
  try {
    if (!is_finished(check_plan({run}, out)[0])) return lock;
    spdlog::info("run {}: {} was finished by another process meanwhile: skipped", position + 1, folder.dir().string());
    ++tally.finished_elsewhere;
  } catch (const Error& e) {  // its folder now holds a run of another spec: leave it untouched
    spdlog::error("run {}: {}", position + 1, e.what());
    ++tally.failed;
  }
  return std::nullopt;
}

// A run that just completed tells --time-limit how long such runs take.
void count_completed(StartRule& rule, const RunFolder& folder) {
  try {
    if (const auto record = read_run_record_if_any(folder.summary_path())) rule.completed(*record);
  } catch (const std::exception&) {  // its record is checked where it is read for the table
  }
}

void log_tally(const Tally& tally, size_t total) {
  if (tally.finished_before > 0)
    spdlog::info("{} of {} runs were already finished and were skipped", tally.finished_before, total);
  if (tally.finished_elsewhere > 0)
    spdlog::info("{} of {} runs were finished by another process meanwhile", tally.finished_elsewhere, total);
  if (!tally.held.empty())
    spdlog::warn("{} of {} runs are being trained by other processes and are not in this table yet: {}",
                 tally.held.size(), total, join(tally.held, "; "));
  if (tally.failed > 0) spdlog::error("{} of {} runs failed (see their summary.json and log.txt)", tally.failed, total);
  if (tally.not_started > 0) spdlog::warn("{}", not_started_summary(tally.not_started, total));
}

// The plan's runs not finished, one after another in this process: each is claimed by its lock and re-checked
// under it, then trained.
class InProcessExecutor : public Executor {
 public:
  explicit InProcessExecutor(const RunnerOptions& options) : options_(options) {}

  int execute(const Plan& plan) override {
    const RunnerOptions& options = options_;
    const std::vector<PlannedRun>& runs = plan.runs;
    Tally tally;
    tally.finished_before = plan.finished();
    Command command{options, resolve_device(options.device), DataLoader(resolve_data_root(options.data_root)),
                    Progress(static_cast<int64_t>(runs.size()), static_cast<int64_t>(plan.to_train().size()),
                             options.live_progress)};
    const InterruptHandlers handlers(options.interrupt.requeue_signal);  // checkpoint on TERM/INT/USR1 (USR2)/ALRM
    const TimeLimit::Alarm alarm(options.time_limit);                    // ALRM at --time-limit
    StartRule start_rule(options.time_limit, runs, options.out);
    for (const size_t i : plan.to_train()) {
      if (interrupt_requested())
        return finish_interrupted(command.steps_made, options.interrupt, tally.failed);  // between runs
      const RunAt at{runs[i], runs[i].position, RunFolder(options.out / runs[i].dir())};
      if (const auto why = start_rule.refusal(at.run, at.folder)) {
        spdlog::warn("run {}: {}", at.position + 1, *why);
        ++tally.not_started;
        continue;
      }
      const std::optional<RunLock> lock = claim(at.run, at.position, at.folder, options.out, tally);
      if (!lock) continue;
      RunState status = RunState::Failed;
      try {
        status = execute_one(at, command);
      } catch (const WriteError&) {
        throw;  // it would fail every later run the same way: the command stops
      } catch (const std::exception& e) {
        record_failure(runs[i], at.folder, command.device, e);  // the other runs go on; the command exits 1 at the end
      }
      command.progress.end_run();
      if (status == RunState::Interrupted && !interrupt_requested()) return kRunStopped;  // by its RunObserver
      if (status == RunState::Interrupted)
        return finish_interrupted(command.steps_made, options.interrupt, tally.failed);
      if (status == RunState::Failed) ++tally.failed;
      if (status == RunState::Complete && options.time_limit.active()) count_completed(start_rule, at.folder);
    }
    log_tally(tally, plan.positions.size());
    if (tally.failed > 0) return 1;
    return tally.not_started > 0 ? kRunStopped : 0;
  }

 private:
  const RunnerOptions& options_;
};

}  // namespace

std::unique_ptr<Executor> in_process_executor(const RunnerOptions& options) {
  return std::make_unique<InProcessExecutor>(options);
}

}  // namespace repro
