#include "train/trainer.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>

#include "train/checkpoint.h"
#include "train/optimizer.h"
#include "train/schedule.h"
#include "train/step.h"
#include "util/files.h"

namespace repro {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Everything random in an epoch (shuffle, augmentation, dropout) comes from the
// global generator reseeded here, so a resumed run replays an epoch exactly.
void seed_epoch(int64_t seed, int64_t epoch) {
  torch::manual_seed(static_cast<uint64_t>(seed) * 1000003ull + static_cast<uint64_t>(epoch));
}

struct EpochResult {
  bool diverged = false;
  bool interrupted = false;  // stopped after `batches_done` batches on an interrupt request
  int64_t batches_done = 0;
  std::string message;
};

std::string divergence_message(double loss, int64_t epoch, int64_t step) {
  return "loss became " + std::to_string(loss) + " at epoch " + std::to_string(epoch) +
         (step > 0 ? ", step " + std::to_string(step) : std::string(" (read at the epoch's end)"));
}

// The generator of `device`'s random draws (the CPU's, or the current CUDA device's).
at::Generator default_generator(torch::Device device) {
  return device.is_cuda() ? at::globalContext().defaultGenerator(device) : at::detail::getDefaultCPUGenerator();
}

torch::Tensor generator_state(at::Generator generator) {
  std::lock_guard<std::mutex> lock(generator.mutex());
  return generator.get_state();
}

void set_generator_state(at::Generator generator, const torch::Tensor& state) {
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(state);
}

// Where an epoch begins: its first batch, or where a mid-epoch checkpoint stopped, with its
// totals and generator states (restored after the epoch's order is redrawn).
struct EpochStart {
  int64_t batch = 0;
  double seconds = 0;
  torch::Tensor cpu_rng, cuda_rng;
};

EpochStart resume_point(const MidEpoch& mid, StepTotals& totals, torch::Device device) {
  totals.loss_sum = mid.loss_sum.to(device);
  totals.correct = mid.correct.to(device);
  totals.seen = mid.seen;
  return EpochStart{mid.batches, mid.seconds, mid.cpu_rng, mid.cuda_rng};
}

MidEpoch mid_epoch_state(const EpochResult& result, const StepTotals& totals, double seconds, torch::Device device) {
  MidEpoch mid;
  mid.batches = result.batches_done;
  mid.seconds = seconds;
  mid.loss_sum = totals.loss_sum.cpu();
  mid.correct = totals.correct.cpu();
  mid.seen = totals.seen;
  mid.cpu_rng = generator_state(at::detail::getDefaultCPUGenerator());
  if (device.is_cuda()) mid.cuda_rng = generator_state(default_generator(device)).cpu();
  return mid;
}

// One epoch of steps from `start.batch` on. On the CPU the loss is read every step (free
// there): the progress line shows it and a NaN stops the run at once. On a GPU nothing is
// read inside the epoch, so the queue never stalls; the caller reads the sums at its end.
// The order is drawn first in every case, so a resumed epoch sees the same order.
EpochResult train_epoch(TrainStep& step_fn, const TrainContext& c, const RunData& data, const Batcher& batcher,
                        const Schedule& schedule, int64_t batch_size, int64_t epoch, int64_t& step,
                        const EpochStart& start, StepTotals& totals) {
  const int64_t n = data.train.size();
  const bool read_each_step = c.device.is_cpu();
  auto order = torch::randperm(n, torch::kInt64);  // (n,) on the CPU
  if (c.device.is_cuda()) order = order.pin_memory();
  if (start.cpu_rng.defined()) set_generator_state(at::detail::getDefaultCPUGenerator(), start.cpu_rng);
  if (start.cuda_rng.defined() && c.device.is_cuda()) set_generator_state(default_generator(c.device), start.cuda_rng);
  EpochResult result;
  result.batches_done = start.batch;
  for (int64_t begin = start.batch * batch_size, b = start.batch + 1; begin < n; begin += batch_size, ++b) {
    const auto indices = order.slice(0, begin, std::min(n, begin + batch_size));         // (B,)
    const Batch x = batcher.inputs(data.train, indices, /*train=*/true);                 // images or ids
    const auto y = data.train.labels.index_select(0, indices_for(data.train, indices));  // (B,)
    const auto loss = step_fn.run(x, y, schedule.at(step), totals);
    ++step;
    result.batches_done = b;
    if (c.hooks.after_step) c.hooks.after_step(step);
    double loss_value = NAN;
    if (read_each_step) {
      loss_value = loss.item<double>();
      if (!std::isfinite(loss_value)) {
        result.diverged = true;
        result.message = divergence_message(loss_value, epoch, step);
        return result;
      }
    }
    c.progress.step(epoch, b, loss_value, indices.size(0));
    if (c.hooks.interrupt_requested && c.hooks.interrupt_requested()) {
      result.interrupted = true;
      return result;
    }
  }
  return result;
}

// The epoch's sums, read once at its end (a GPU's one read of the epoch): a NaN or Inf loss is divergence.
void check_epoch_totals(const StepTotals& totals, int64_t epoch, EpochResult& result) {
  const double loss_sum = totals.loss_sum.item<double>();
  if (std::isfinite(loss_sum)) return;
  result.diverged = true;
  result.message = divergence_message(loss_sum, epoch, 0);
}

TrainOutcome& stopped(TrainOutcome& outcome, const std::string& status, const TrainState& state) {
  outcome.status = status;
  outcome.wall_seconds = state.wall_seconds;
  return outcome;
}

}  // namespace

std::pair<double, double> evaluate(ClassifierImpl& model, const Split& split, const Batcher& batcher,
                                   torch::Device device, int64_t batch_size, Precision precision) {
  if (split.size() == 0) return {NAN, NAN};
  torch::NoGradGuard no_grad;
  model.eval();
  StepTotals totals(device);
  for (int64_t begin = 0; begin < split.size(); begin += batch_size) {
    const auto indices = torch::arange(begin, std::min(split.size(), begin + batch_size), torch::kInt64);
    const Batch x = batcher.inputs(split, indices, /*train=*/false);
    const auto y = split.labels.index_select(0, indices_for(split, indices));  // on the split's (= run's) device
    const auto logits = predict(model, x, device, precision);                  // (B, classes) float32
    totals.add(torch::nn::functional::cross_entropy(logits, y), logits, y);
  }
  const auto n = static_cast<double>(split.size());
  return {totals.loss_sum.item<double>() / n, 100.0 * static_cast<double>(totals.correct.item<int64_t>()) / n};
}

TrainOutcome train(ClassifierImpl& model, const TrainContext& c) {
  const TrainOptions options = train_options(c.run.config);
  model.to(c.device);
  allow_tf32(c.device);
  const RunData data = resident_data(c.data, c.device);  // the whole dataset on the device, once
  const int64_t batch_size = options.batch_size, epochs = options.epochs;
  const int64_t steps_per_epoch = (data.train.size() + batch_size - 1) / batch_size;
  const Schedule schedule = Schedule::from_options(options.schedule, epochs, steps_per_epoch);  // owns train.lr
  auto optimizer = make_optimizer(model, options.optimizer, schedule.at(0));
  TrainStep step_fn(model, *optimizer, options, c.device);
  const auto batcher_ptr = make_batcher(c.data.info, c.run.config, c.device);
  const Batcher& batcher = *batcher_ptr;

  TrainOutcome outcome;
  TrainState state;
  if (std::filesystem::exists(c.checkpoint_path)) {
    state = load_checkpoint(c.checkpoint_path, model, *optimizer);
    outcome.history = history_from_json(nlohmann::json::parse(state.history_json));
    outcome.resumed_from_epoch = state.epochs_done;
    spdlog::info("resuming from {} after epoch {}", c.checkpoint_path.string(), state.epochs_done);
  }
  // The checkpoint's history is the record: the run layer rewrites metrics.csv from
  // it, so a kill between the checkpoint and metrics.csv is repaired here.
  if (c.hooks.history_changed) c.hooks.history_changed(outcome.history);
  if (c.hooks.model_changed && state.mid_epoch.batches == 0) c.hooks.model_changed(model, outcome.history);
  c.progress.begin_run(c.position, c.run.model_config + " " + c.run.dataset + " seed " + std::to_string(c.run.seed),
                       epochs, steps_per_epoch, state.epochs_done);
  const int64_t first_step = state.step;
  for (int64_t epoch = state.epochs_done + 1; epoch <= epochs; ++epoch) {
    const auto start_time = Clock::now();
    seed_epoch(c.run.seed, epoch);
    model.train();
    StepTotals totals(c.device);
    EpochStart start;
    if (state.mid_epoch.batches > 0) {  // the epoch an interrupted start stopped in
      start = resume_point(state.mid_epoch, totals, c.device);
      spdlog::info("resuming epoch {} after batch {}", epoch, start.batch);
      state.mid_epoch = MidEpoch{};
    }
    EpochResult result = train_epoch(step_fn, c, data, batcher, schedule, batch_size, epoch, state.step, start, totals);
    outcome.steps_this_start = state.step - first_step;
    if (!result.diverged && !result.interrupted) check_epoch_totals(totals, epoch, result);
    if (result.diverged) {
      outcome.status = "diverged";
      outcome.message = result.message;
      outcome.wall_seconds = state.wall_seconds + start.seconds + seconds_since(start_time);
      return outcome;
    }
    if (result.interrupted) {
      state.mid_epoch = mid_epoch_state(result, totals, start.seconds + seconds_since(start_time), c.device);
      state.history_json = history_to_json(outcome.history).dump();  // "[]" in epoch 1
      save_checkpoint(c.checkpoint_path, model, *optimizer, state);
      c.progress.clear_line();
      spdlog::info("interrupted: checkpoint written in epoch {} after batch {} of {} (step {})", epoch,
                   result.batches_done, steps_per_epoch, state.step);
      return stopped(outcome, "interrupted", state);
    }
    EpochRow row;
    row.epoch = epoch;
    row.step = state.step;
    row.lr = schedule.at(std::max<int64_t>(0, state.step - 1));
    row.train_loss = totals.loss_sum.item<double>() / static_cast<double>(totals.seen);
    row.train_acc = 100.0 * static_cast<double>(totals.correct.item<int64_t>()) / static_cast<double>(totals.seen);
    const int64_t eval_batch = options.eval_batch_size;
    const Precision precision = step_fn.precision();
    std::tie(row.val_loss, row.val_acc) = evaluate(model, data.val, batcher, c.device, eval_batch, precision);
    std::tie(row.test_loss, row.test_acc) = evaluate(model, data.test, batcher, c.device, eval_batch, precision);
    row.seconds = start.seconds + seconds_since(start_time);
    outcome.history.push_back(row);

    state.epochs_done = epoch;
    state.wall_seconds += row.seconds;
    state.history_json = history_to_json(outcome.history).dump();
    save_checkpoint(c.checkpoint_path, model, *optimizer, state);
    if (c.hooks.history_changed) c.hooks.history_changed(outcome.history);
    if (c.hooks.model_changed) c.hooks.model_changed(model, outcome.history);
    c.progress.clear_line();
    const std::string val = std::isnan(row.val_acc) ? "-" : fmt::format("{:.2f}%", row.val_acc);
    spdlog::info("epoch {}/{}: train loss {:.4f} acc {:.2f}% | val acc {} | test loss {:.4f} acc {:.2f}% | {:.1f}s",
                 epoch, epochs, row.train_loss, row.train_acc, val, row.test_loss, row.test_acc, row.seconds);
    if (c.hooks.stop_after_epoch && c.hooks.stop_after_epoch(epoch))  // the final epoch too: no summary yet
      return stopped(outcome, "stopped", state);
    if (epoch < epochs && c.hooks.interrupt_requested && c.hooks.interrupt_requested()) {
      spdlog::info("interrupted: checkpoint written after epoch {}", epoch);
      return stopped(outcome, "interrupted", state);
    }
  }
  outcome.status = "complete";
  outcome.wall_seconds = state.wall_seconds;
  return outcome;
}

}  // namespace repro
