#include "train/trainer.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <csignal>
#include <cmath>

#include "train/checkpoint.h"
#include "train/optimizer.h"
#include "train/schedule.h"
#include "util/files.h"

namespace repro {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Everything random in an epoch (shuffle, augmentation, dropout) comes from the
// global generator reseeded here, so a resumed run replays an epoch exactly.
void seed_epoch(int64_t seed, int64_t epoch) {
  torch::manual_seed(static_cast<uint64_t>(seed) * 1000003ull + static_cast<uint64_t>(epoch));
}

struct EpochTotals {
  double loss_sum = 0;
  torch::Tensor correct;  // () on the run's device: no host sync per step
  int64_t seen = 0;
  bool diverged = false;
  std::string message;
};

EpochTotals train_epoch(ClassifierImpl& model, torch::optim::Optimizer& optimizer, const TrainContext& c,
                        const Batcher& batcher, const Schedule& schedule, int64_t epoch, int64_t& step) {
  const Config& config = c.run.config;
  const int64_t n = c.data.train.size(), batch_size = config.integer("train.batch_size");
  const double clip = config.real("train.clip_norm");
  const auto loss_options = torch::nn::functional::CrossEntropyFuncOptions().label_smoothing(
      config.real("train.label_smoothing"));
  const auto order = torch::randperm(n, torch::kInt64);
  model.train();
  EpochTotals totals;
  totals.correct = torch::zeros({}, torch::TensorOptions().dtype(torch::kInt64).device(c.device));
  for (int64_t begin = 0, b = 1; begin < n; begin += batch_size, ++b) {
    const auto indices = order.slice(0, begin, std::min(n, begin + batch_size));  // (B,)
    const Batch x = batcher.inputs(c.data.train, indices, /*train=*/true);        // images or ids
    const auto y = c.data.train.labels.index_select(0, indices).to(c.device);      // (B,)
    set_learning_rate(optimizer, schedule.at(step));
    optimizer.zero_grad();
    const auto logits = model.forward(x);  // (B, classes)
    const auto loss = torch::nn::functional::cross_entropy(logits, y, loss_options);
    const double loss_value = loss.item<double>();
    if (!std::isfinite(loss_value)) {
      totals.diverged = true;
      totals.message = "loss became " + std::to_string(loss_value) + " at epoch " + std::to_string(epoch) +
                       ", step " + std::to_string(step + 1);
      return totals;
    }
    loss.backward();
    if (clip > 0) torch::nn::utils::clip_grad_norm_(model.parameters(), clip);
    optimizer.step();
    ++step;
    if (c.kill_at_step > 0 && step == c.kill_at_step) std::raise(SIGKILL);  // tests: die mid-epoch
    totals.loss_sum += loss_value * static_cast<double>(indices.size(0));
    totals.correct += logits.argmax(1).eq(y).sum();
    totals.seen += indices.size(0);
    c.progress.step(epoch, b, loss_value, indices.size(0));
  }
  return totals;
}

}  // namespace

std::pair<double, double> evaluate(ClassifierImpl& model, const Split& split, const Batcher& batcher,
                                   torch::Device device, int64_t batch_size) {
  if (split.size() == 0) return {NAN, NAN};
  torch::NoGradGuard no_grad;
  model.eval();
  double loss_sum = 0;
  int64_t correct = 0;
  for (int64_t begin = 0; begin < split.size(); begin += batch_size) {
    const auto indices = torch::arange(begin, std::min(split.size(), begin + batch_size), torch::kInt64);
    const Batch x = batcher.inputs(split, indices, /*train=*/false);
    const auto y = split.labels.index_select(0, indices).to(device);
    const auto logits = model.forward(x);
    loss_sum += torch::nn::functional::cross_entropy(
                    logits, y, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                    .item<double>();
    correct += logits.argmax(1).eq(y).sum().item<int64_t>();
  }
  const auto n = static_cast<double>(split.size());
  return {loss_sum / n, 100.0 * static_cast<double>(correct) / n};
}

TrainOutcome train(ClassifierImpl& model, const TrainContext& c) {
  const Config& config = c.run.config;
  model.to(c.device);
  auto optimizer = make_optimizer(model, config);
  const int64_t batch_size = config.integer("train.batch_size"), epochs = config.integer("train.epochs");
  const int64_t steps_per_epoch = (c.data.train.size() + batch_size - 1) / batch_size;
  const Schedule schedule = Schedule::from_config(config, steps_per_epoch);
  const auto batcher_ptr = make_batcher(c.data.info, config, c.device);
  const Batcher& batcher = *batcher_ptr;

  TrainOutcome outcome;
  TrainState state;
  if (std::filesystem::exists(c.folder.checkpoint_path())) {
    state = load_checkpoint(c.folder.checkpoint_path(), model, *optimizer);
    outcome.history = history_from_json(nlohmann::json::parse(state.history_json));
    outcome.resumed_from_epoch = state.epochs_done;
    spdlog::info("resuming {} from its checkpoint after epoch {}", c.folder.dir().string(), state.epochs_done);
  }
  c.progress.begin_run(c.position, c.run.model_config + " " + c.run.dataset + " seed " + std::to_string(c.run.seed),
                       epochs, steps_per_epoch, state.epochs_done);
  for (int64_t epoch = state.epochs_done + 1; epoch <= epochs; ++epoch) {
    const auto start = Clock::now();
    seed_epoch(c.run.seed, epoch);
    const EpochTotals totals = train_epoch(model, *optimizer, c, batcher, schedule, epoch, state.step);
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
    row.train_acc = 100.0 * static_cast<double>(totals.correct.item<int64_t>()) / static_cast<double>(totals.seen);
    const int64_t eval_batch = config.integer("train.eval_batch_size");
    std::tie(row.val_loss, row.val_acc) = evaluate(model, c.data.val, batcher, c.device, eval_batch);
    std::tie(row.test_loss, row.test_acc) = evaluate(model, c.data.test, batcher, c.device, eval_batch);
    row.seconds = seconds_since(start);
    outcome.history.push_back(row);

    state.epochs_done = epoch;
    state.wall_seconds += row.seconds;
    state.history_json = history_to_json(outcome.history).dump();
    save_checkpoint(c.folder.checkpoint_path(), model, *optimizer, state);
    write_file_atomic(c.folder.metrics_path(), metrics_csv(outcome.history));
    c.progress.clear_line();
    const std::string val = std::isnan(row.val_acc) ? "-" : fmt::format("{:.2f}%", row.val_acc);
    spdlog::info("epoch {}/{}: train loss {:.4f} acc {:.2f}% | val acc {} | test loss {:.4f} acc {:.2f}% | {:.1f}s",
                 epoch, epochs, row.train_loss, row.train_acc, val, row.test_loss, row.test_acc, row.seconds);
    if (c.stop_after_epoch > 0 && epoch == c.stop_after_epoch && epoch < epochs) {
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
