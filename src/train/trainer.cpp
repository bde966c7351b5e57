#include "train/trainer.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>

#include "train/checkpoint.h"
#include "train/resume.h"
#include "train/split_metrics.h"
#include "train/step.h"

namespace repro {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The model moved to the device first (AdamW's state follows its parameters), then the whole dataset.
RunData onto_device(ClassifierImpl& model, const TrainContext& c) {
  model.to(c.device);
  allow_tf32(c.device);
  return resident_data(c.data, c.device);
}

// What the steps of one epoch came to.
struct EpochResult {
  int64_t batches_done = 0;
  bool diverged = false;
  bool interrupted = false;  // stopped after `batches_done` batches on an interrupt request
  std::string message;
};

std::string divergence_message(double loss, int64_t epoch, int64_t step) {
  return "loss became " + std::to_string(loss) + " at epoch " + std::to_string(epoch) +
         (step > 0 ? ", step " + std::to_string(step) : std::string(" (read at the epoch's end)"));
}

// One run: its machinery set up once (the model and the whole dataset on the device; the step, which owns the
// schedule (the one owner of train.lr), AdamW and the steps.csv window; the batcher), the loop (run), one epoch
// (run_epoch) and one optimizer step (step).
class Training {
 public:
  Training(ClassifierImpl& m, const TrainContext& context)
      : model(m),
        c(context),
        options(context.run.options.train),
        generators(context.device),
        data(onto_device(m, context)),
        steps_per_epoch((data.train.size() + options.batch_size - 1) / options.batch_size),
        train_step(m, options, context.device,
                   Schedule::from_options(options.schedule, options.epochs, steps_per_epoch)),
        batcher(make_batcher(context.data.info, context.run.options.data, context.device,
                             train_step.length_buckets(context.data.info.max_length))) {}

  // The loop of one run, top to bottom: start or resume; per epoch: seed, run its steps, then either stop
  // (diverged, interrupted mid-epoch) or finish it (evaluate, checkpoint, records); then the outcome.
  TrainOutcome run() {
    const auto lane = train_step.lane_scope();  // on CUDA: the step's own stream, for everything of this run
    const RunRandomScope random(generators);    // every draw of this thread: the run's generators (data/random.h)
    start_or_resume();
    for (int64_t epoch = state.epochs_done + 1; epoch <= options.epochs; ++epoch) {
      const auto started = Clock::now();
      seed_epoch(generators, c.run.seed, epoch);
      model.train();
      StepTotals totals(c.device);
      EpochStart start;
      if (state.mid_epoch.batches > 0) {  // the epoch an interrupted start stopped in
        start = resume_point(state.mid_epoch, totals, c.device);
        spdlog::info("resuming epoch {} after batch {}", epoch, start.batch);
        state.mid_epoch = MidEpoch{};
      }
      const EpochResult result = run_epoch(epoch, start, totals, started);
      outcome.steps_this_start = state.step - first_step;
      const double seconds = start.seconds + seconds_since(started);
      if (result.diverged) return finish(RunState::Diverged, state.wall_seconds + seconds, result.message);
      if (result.interrupted) {
        checkpoint_mid_epoch(epoch, result, totals, seconds);
        return finish(RunState::Interrupted, state.wall_seconds);
      }
      finish_epoch(epoch, totals, start, started);
      const bool observer_stops = c.observer && c.observer->stop_after_epoch(epoch);  // the final epoch's too
      if (observer_stops || (epoch < options.epochs && interrupt_requested())) {
        spdlog::info("interrupted: checkpoint written after epoch {}", epoch);
        return finish(RunState::Interrupted, state.wall_seconds);
      }
    }
    return finish(RunState::Complete, state.wall_seconds);
  }

 private:
  // One optimizer step on the batch (x, labels): the schedule's lr, forward, loss, backward, clipping, AdamW and
  // the steps.csv row when one is due, all in TrainStep::run (train/step.cpp, the very step `repro bench` times);
  // then the hooks. Returns the batch's mean loss, () on the device.
  torch::Tensor step(const Batch& x, const torch::Tensor& labels, int64_t epoch, StepTotals& totals) {
    const StepResult result = train_step.run(x, labels, state.step, epoch, totals);
    ++state.step;
    if (result.row) {
      outcome.steps.push_back(*result.row);
      // Hook step_logged: the run layer appends the row to the TensorBoard event file as it is made.
      if (c.hooks.step_logged) c.hooks.step_logged(*result.row);
    }
    // The observer (null in repro): the tests' fault injector kills or signals the run here.
    if (c.observer) c.observer->after_step(c.position, state.step);
    return result.loss;
  }

  // One epoch of optimizer steps, from its first batch or where a mid-epoch checkpoint stopped. On the CPU the
  // loss is read every step (free there): the progress line shows it and a NaN stops the run at once. On a GPU
  // only a steps.csv row (every train.log_every steps) is read inside the epoch; the epoch's sums at its end.
  EpochResult run_epoch(int64_t epoch, const EpochStart& start, StepTotals& totals, Clock::time_point started) {
    const Split& train = data.train;
    const int64_t n = train.size(), batch_size = options.batch_size;
    auto order = torch::randperm(n, generators.cpu(), torch::kInt64);  // (n,): drawn first, so a resumed epoch
    if (c.device.is_cuda()) order = order.pin_memory();                // sees the same order
    restore_generators(start, generators);
    EpochResult result{start.batch};
    for (int64_t begin = start.batch * batch_size, b = start.batch + 1; begin < n; begin += batch_size, ++b) {
      const auto indices = order.slice(0, begin, std::min(n, begin + batch_size));  // (B,)
      const Batch x = batcher->inputs(train, indices, /*train=*/true);              // images or token ids
      const auto y = train.labels.index_select(0, indices_for(train, indices));     // (B,)
      const auto loss = step(x, y, epoch, totals);
      result.batches_done = b;
      const double loss_value = c.device.is_cpu() ? loss.item<double>() : NAN;
      if (c.device.is_cpu() && !std::isfinite(loss_value))
        return {b, /*diverged=*/true, false, divergence_message(loss_value, epoch, state.step)};
      c.progress.step(epoch, b, loss_value, indices.size(0));
      if (interrupt_requested()) return {b, false, /*interrupted=*/true, ""};
      if (checkpoint_due()) checkpoint_and_go_on(epoch, b, totals, start.seconds + seconds_since(started));
    }
    if (const double loss_sum = totals.loss_sum.item<double>(); !std::isfinite(loss_sum))  // a GPU's one read
      return {result.batches_done, /*diverged=*/true, false, divergence_message(loss_sum, epoch, 0)};
    return result;
  }

  // Resume from the checkpoint when there is one; either way the run layer sees the history and the weights first
  // (it rewrites metrics.csv and model.pt from them, so a kill between checkpoint and records is repaired).
  void start_or_resume() {
    const bool resumed = std::filesystem::exists(c.checkpoint_path);
    if (resumed) {
      state = load_checkpoint(c.checkpoint_path, model, train_step.optimizer());
      train_step.after_load();
      outcome.history = history_from_json(nlohmann::json::parse(state.history_json));
      outcome.steps = steps_from_json(nlohmann::json::parse(state.steps_json));
      train_step.window().restore(state.steps_window);
      outcome.resumed_from_epoch = state.epochs_done;
      spdlog::info("resuming from {} after epoch {}", c.checkpoint_path.string(), state.epochs_done);
    }
    // The run layer's hooks (run/in_process.cpp): started opens the TensorBoard event file (a SessionLog START at the
    // checkpoint's step on a resume); history_changed and steps_changed rewrite metrics.csv and steps.csv from the
    // checkpoint's rows (dropping rows a kill left past it); model_changed rewrites model.pt.
    if (c.hooks.started) c.hooks.started(resumed ? std::optional<int64_t>(state.step) : std::nullopt);
    if (c.hooks.history_changed) c.hooks.history_changed(outcome.history);
    if (c.hooks.steps_changed) c.hooks.steps_changed(outcome.steps);
    if (c.hooks.model_changed && state.mid_epoch.batches == 0) c.hooks.model_changed(model, outcome.history);
    c.progress.begin_run(c.position, c.run.model_config + " " + c.run.dataset + " seed " + std::to_string(c.run.seed),
                         options.epochs, steps_per_epoch, state.epochs_done);
    first_step = state.step;
  }

  // A mid-epoch checkpoint: position, partial sums and generator states, so that a resumed run replays the rest of
  // the epoch exactly. Saving reads them, it draws nothing: the run's numbers do not change.
  void save_mid_epoch(int64_t batches, const StepTotals& totals, double seconds) {
    state.mid_epoch = mid_epoch_state(batches, totals, seconds, generators);
    save(/*epoch_end=*/false);
    state.mid_epoch = MidEpoch{};
    c.progress.clear_line();
  }

  // An interrupted epoch: its mid-epoch checkpoint, then the run stops.
  void checkpoint_mid_epoch(int64_t epoch, const EpochResult& result, const StepTotals& totals, double seconds) {
    save_mid_epoch(result.batches_done, totals, seconds);
    spdlog::info("interrupted: checkpoint written in epoch {} after batch {} of {} (step {})", epoch,
                 result.batches_done, steps_per_epoch, state.step);
  }

  // TrainContext::checkpoint_seconds since the last checkpoint: a mid-epoch checkpoint, and the epoch goes on.
  bool checkpoint_due() const {
    return c.checkpoint_seconds > 0 && seconds_since(last_checkpoint) >= c.checkpoint_seconds;
  }
  void checkpoint_and_go_on(int64_t epoch, int64_t batches, const StepTotals& totals, double seconds) {
    save_mid_epoch(batches, totals, seconds);
    spdlog::info("checkpoint written in epoch {} after batch {} of {} (step {}; --checkpoint-minutes)", epoch, batches,
                 steps_per_epoch, state.step);
  }

  // A finished epoch: its training sums, validation and test metrics as one history row (its seconds include the
  // evaluation), the checkpoint, then the run layer's hooks (metrics.csv, model.pt) and the log line.
  void finish_epoch(int64_t epoch, const StepTotals& totals, const EpochStart& start, Clock::time_point started) {
    EpochRow row;
    row.epoch = epoch;
    row.step = state.step;
    row.lr = train_step.schedule().at(std::max<int64_t>(0, state.step - 1));
    row.train_loss = totals.loss_sum.item<double>() / static_cast<double>(totals.seen);
    row.train_acc = 100.0 * static_cast<double>(totals.correct.item<int64_t>()) / static_cast<double>(totals.seen);
    const auto measure = [&](const Split& split) {
      return train_step.evaluate(split, *batcher, {options.eval_batch_size, options.eval_tokens});
    };
    const SplitMetrics val = measure(data.val), test = measure(data.test);
    row.val_loss = val.loss, row.val_acc = val.acc, row.test_loss = test.loss, row.test_acc = test.acc;
    row.seconds = start.seconds + seconds_since(started);
    outcome.history.push_back(row);

    state.epochs_done = epoch;
    state.wall_seconds += row.seconds;
    save(/*epoch_end=*/true);
    if (c.hooks.model_changed) c.hooks.model_changed(model, outcome.history);  // model.pt (train.save_model)
    c.progress.clear_line();
    const std::string val_text = std::isnan(row.val_acc) ? "-" : fmt::format("{:.2f}%", row.val_acc);
    spdlog::info("epoch {}/{}: train loss {:.4f} acc {:.2f}% | val acc {} | test loss {:.4f} acc {:.2f}% | {:.1f}s",
                 epoch, options.epochs, row.train_loss, row.train_acc, val_text, row.test_loss, row.test_acc,
                 row.seconds);
  }

  // The history and step rows into the checkpoint's state, then the checkpoint, then the run layer's records.
  void save(bool epoch_end) {
    state.history_json = history_to_json(outcome.history).dump();  // "[]" in epoch 1
    state.steps_json = steps_to_json(outcome.steps).dump();
    if (options.log_every > 0) state.steps_window = train_step.window().sums();
    train_step.before_save();
    save_checkpoint(c.checkpoint_path, model, train_step.optimizer(), state);
    last_checkpoint = Clock::now();
    // metrics.csv (and the epoch's TensorBoard scalars) after an epoch's checkpoint, steps.csv after any.
    if (epoch_end && c.hooks.history_changed) c.hooks.history_changed(outcome.history);
    if (c.hooks.steps_changed) c.hooks.steps_changed(outcome.steps);
  }

  // The run layer's poll for a stop signal (TrainHooks::interrupt_requested: SIGTERM, SIGINT, SIGUSR1, the
  // --time-limit alarm), after every step and every epoch's checkpoint.
  bool interrupt_requested() const { return c.hooks.interrupt_requested && c.hooks.interrupt_requested(); }

  TrainOutcome finish(RunState status, double wall_seconds, const std::string& message = "") {
    outcome.status = status;
    outcome.message = message;
    outcome.wall_seconds = wall_seconds;
    outcome.precision = train_step.precision();
    outcome.cuda_graphs = train_step.graphs_ran();
    return outcome;
  }

  ClassifierImpl& model;
  const TrainContext& c;
  TrainOptions options;
  RunGenerators generators;  // this run's (data order, augmentation, dropout), seeded per epoch: data/random.h
  RunData data;              // resident on c.device
  int64_t steps_per_epoch;   // ceil(train examples / batch size)
  TrainStep train_step;      // lr, forward ... AdamW, the steps.csv window (train/step.h)
  std::unique_ptr<Batcher> batcher;
  TrainState state;  // epochs done, optimizer steps, wall time, history, a mid-epoch position
  TrainOutcome outcome;
  int64_t first_step = 0;                            // state.step when this start began
  Clock::time_point last_checkpoint = Clock::now();  // or this start's beginning (checkpoint_due)
};

}  // namespace

TrainOutcome train(ClassifierImpl& model, const TrainContext& c) { return Training(model, c).run(); }

}  // namespace repro
