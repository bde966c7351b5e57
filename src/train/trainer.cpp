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
  double loss_sum = 0;
  int64_t correct = 0, seen = 0;
  bool diverged = false;
  std::string message;
};

std::string divergence_message(double loss, int64_t epoch, int64_t step) {
  return "loss became " + std::to_string(loss) + " at epoch " + std::to_string(epoch) +
         (step > 0 ? ", step " + std::to_string(step) : std::string(" (read at the epoch's end)"));
}

// One epoch of steps. On the CPU the loss is read every step (free there): the
// progress line shows it and a NaN stops the run at once. On a GPU nothing is
// read inside the epoch, so the queue never stalls; the sums are read at its end.
EpochResult train_epoch(TrainStep& step_fn, const TrainContext& c, const RunData& data, const Batcher& batcher,
                        const Schedule& schedule, int64_t batch_size, int64_t epoch, int64_t& step) {
  const int64_t n = data.train.size();
  const bool read_each_step = c.device.is_cpu();
  auto order = torch::randperm(n, torch::kInt64);  // (n,) on the CPU
  if (c.device.is_cuda()) order = order.pin_memory();
  StepTotals totals(c.device);
  EpochResult result;
  for (int64_t begin = 0, b = 1; begin < n; begin += batch_size, ++b) {
    const auto indices = order.slice(0, begin, std::min(n, begin + batch_size));         // (B,)
    const Batch x = batcher.inputs(data.train, indices, /*train=*/true);                 // images or ids
    const auto y = data.train.labels.index_select(0, indices_for(data.train, indices));  // (B,)
    const auto loss = step_fn.run(x, y, schedule.at(step), totals);
    ++step;
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
  }
  result.loss_sum = totals.loss_sum.item<double>();  // the epoch's one read of the device
  result.correct = totals.correct.item<int64_t>();
  result.seen = totals.seen;
  if (!std::isfinite(result.loss_sum)) {
    result.diverged = true;
    result.message = divergence_message(result.loss_sum, epoch, 0);
  }
  return result;
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
  c.progress.begin_run(c.position, c.run.model_config + " " + c.run.dataset + " seed " + std::to_string(c.run.seed),
                       epochs, steps_per_epoch, state.epochs_done);
  for (int64_t epoch = state.epochs_done + 1; epoch <= epochs; ++epoch) {
    const auto start = Clock::now();
    seed_epoch(c.run.seed, epoch);
    model.train();
    const EpochResult totals = train_epoch(step_fn, c, data, batcher, schedule, batch_size, epoch, state.step);
    if (totals.diverged) {
      outcome.status = "diverged";
      outcome.message = totals.message;
      outcome.wall_seconds = state.wall_seconds + seconds_since(start);
      return outcome;
    }
    EpochRow row;
    row.epoch = epoch;
    row.step = state.step;
    row.lr = schedule.at(std::max<int64_t>(0, state.step - 1));
    row.train_loss = totals.loss_sum / static_cast<double>(totals.seen);
    row.train_acc = 100.0 * static_cast<double>(totals.correct) / static_cast<double>(totals.seen);
    const int64_t eval_batch = options.eval_batch_size;
    const Precision precision = step_fn.precision();
    std::tie(row.val_loss, row.val_acc) = evaluate(model, data.val, batcher, c.device, eval_batch, precision);
    std::tie(row.test_loss, row.test_acc) = evaluate(model, data.test, batcher, c.device, eval_batch, precision);
    row.seconds = seconds_since(start);
    outcome.history.push_back(row);

    state.epochs_done = epoch;
    state.wall_seconds += row.seconds;
    state.history_json = history_to_json(outcome.history).dump();
    save_checkpoint(c.checkpoint_path, model, *optimizer, state);
    if (c.hooks.history_changed) c.hooks.history_changed(outcome.history);
    c.progress.clear_line();
    const std::string val = std::isnan(row.val_acc) ? "-" : fmt::format("{:.2f}%", row.val_acc);
    spdlog::info("epoch {}/{}: train loss {:.4f} acc {:.2f}% | val acc {} | test loss {:.4f} acc {:.2f}% | {:.1f}s",
                 epoch, epochs, row.train_loss, row.train_acc, val, row.test_loss, row.test_acc, row.seconds);
    if (c.hooks.stop_after_epoch && c.hooks.stop_after_epoch(epoch)) {  // the final epoch too: no summary yet
      outcome.status = "stopped";
      outcome.wall_seconds = state.wall_seconds;
      return outcome;
    }
  }
  outcome.status = "complete";
  outcome.wall_seconds = state.wall_seconds;
  return outcome;
}

}  // namespace repro
