#include "train/checkpoint.h"

#include <nlohmann/json.hpp>
#include <sstream>

#include "train/history.h"
#include "util/error.h"
#include "util/files.h"

namespace repro {

namespace {

// One fresh tensor per value: InputArchive::read into a defined tensor calls
// set_() on it, so reusing one tensor read the float64 wall time into the int64
// step's storage and took its bits as an integer (4.65e18 seconds).
torch::Tensor read_tensor(torch::serialize::InputArchive& archive, const std::string& key) {
  torch::Tensor value;
  archive.read(key, value);
  return value;
}

// The history must parse and hold epochs 1..epochs_done in order.
void check_history(const TrainState& state) {
  const auto rows = history_from_json(nlohmann::json::parse(state.history_json));
  if (static_cast<int64_t>(rows.size()) != state.epochs_done)
    throw Error("its history holds " + std::to_string(rows.size()) + " epochs but it says " +
                std::to_string(state.epochs_done) + " are done");
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i].epoch != static_cast<int64_t>(i) + 1)
      throw Error("its history's row " + std::to_string(i + 1) + " is epoch " + std::to_string(rows[i].epoch));
}

// The mid-epoch fields, written only when the checkpoint is one.
void write_mid_epoch(torch::serialize::OutputArchive& archive, const MidEpoch& mid) {
  if (mid.batches == 0) return;
  archive.write("mid_batches", torch::tensor(mid.batches));
  archive.write("mid_seconds", torch::tensor(mid.seconds, torch::kFloat64));
  archive.write("mid_loss_sum", mid.loss_sum.cpu());
  archive.write("mid_correct", mid.correct.cpu());
  archive.write("mid_seen", torch::tensor(mid.seen));
  archive.write("mid_cpu_rng", mid.cpu_rng);
  if (mid.cuda_rng.defined()) archive.write("mid_cuda_rng", mid.cuda_rng.cpu());
}

// Absent fields (an end-of-epoch checkpoint, or one written before they existed) leave `batches` at 0.
MidEpoch read_mid_epoch(torch::serialize::InputArchive& archive) {
  MidEpoch mid;
  torch::Tensor batches;
  if (!archive.try_read("mid_batches", batches)) return mid;
  mid.batches = batches.item<int64_t>();
  mid.seconds = read_tensor(archive, "mid_seconds").item<double>();
  mid.loss_sum = read_tensor(archive, "mid_loss_sum");
  mid.correct = read_tensor(archive, "mid_correct");
  mid.seen = read_tensor(archive, "mid_seen").item<int64_t>();
  mid.cpu_rng = read_tensor(archive, "mid_cpu_rng");
  torch::Tensor cuda_rng;
  if (archive.try_read("mid_cuda_rng", cuda_rng)) mid.cuda_rng = cuda_rng;
  if (mid.batches < 0 || mid.seen < 0) throw Error("its mid-epoch position is negative");
  return mid;
}

}  // namespace

void save_archive_atomic(torch::serialize::OutputArchive& archive, const std::filesystem::path& path) {
  std::ostringstream bytes;
  try {
    archive.save_to(bytes);
  } catch (const c10::Error& e) {
    throw WriteError(path.string(), e.what_without_backtrace());
  }
  write_file_atomic(path, bytes.str());
}

void save_checkpoint(const std::filesystem::path& path, torch::nn::Module& model, torch::optim::Optimizer& optimizer,
                     const TrainState& state) {
  torch::serialize::OutputArchive archive, model_archive, optimizer_archive;
  model.save(model_archive);
  optimizer.save(optimizer_archive);
  archive.write("model", model_archive);
  archive.write("optimizer", optimizer_archive);
  archive.write("epochs_done", torch::tensor(state.epochs_done));
  archive.write("step", torch::tensor(state.step));
  archive.write("wall_seconds", torch::tensor(state.wall_seconds, torch::kFloat64));
  archive.write("history_json", c10::IValue(state.history_json));
  archive.write("steps_json", c10::IValue(state.steps_json));
  if (state.steps_window.loss_sum.defined()) {
    archive.write("steps_window_loss", state.steps_window.loss_sum);
    archive.write("steps_window_seen", torch::tensor(state.steps_window.seen));
  }
  write_mid_epoch(archive, state.mid_epoch);
  save_archive_atomic(archive, path);
}

TrainState load_checkpoint(const std::filesystem::path& path, torch::nn::Module& model,
                           torch::optim::Optimizer& optimizer) {
  const std::string restart = "; delete it to restart this run from epoch 1";
  try {
    torch::serialize::InputArchive archive, model_archive, optimizer_archive;
    regular_file_size(path, kStreamedBytes, "a checkpoint");  // a FIFO would block LibTorch's reader
    archive.load_from(path.string());
    archive.read("model", model_archive);
    archive.read("optimizer", optimizer_archive);
    model.load(model_archive);
    optimizer.load(optimizer_archive);
    TrainState state;
    state.epochs_done = read_tensor(archive, "epochs_done").item<int64_t>();
    state.step = read_tensor(archive, "step").item<int64_t>();
    state.wall_seconds = read_tensor(archive, "wall_seconds").item<double>();
    c10::IValue history;
    archive.read("history_json", history);
    state.history_json = history.toStringRef();
    c10::IValue steps;  // absent from checkpoints of repro before steps.csv: no rows
    if (archive.try_read("steps_json", steps)) state.steps_json = steps.toStringRef();
    torch::Tensor window_loss;
    if (archive.try_read("steps_window_loss", window_loss))
      state.steps_window = {window_loss, read_tensor(archive, "steps_window_seen").item<int64_t>()};
    check_history(state);
    state.mid_epoch = read_mid_epoch(archive);
    return state;
  } catch (const c10::Error& e) {
    throw Error(path.string() + ": unreadable checkpoint (" + std::string(e.what_without_backtrace()) + ")" + restart);
  } catch (const nlohmann::json::exception& e) {
    throw Error(path.string() + ": unreadable checkpoint (its metric history: " + e.what() + ")" + restart);
  } catch (const Error& e) {
    throw Error(path.string() + ": unreadable checkpoint (" + e.what() + ")" + restart);
  }
}

CheckpointPosition peek_checkpoint(const std::filesystem::path& path) {
  try {
    torch::serialize::InputArchive archive;
    regular_file_size(path, kStreamedBytes, "a checkpoint");
    archive.load_from(path.string());
    CheckpointPosition position;
    position.epochs_done = read_tensor(archive, "epochs_done").item<int64_t>();
    torch::Tensor batches;
    if (archive.try_read("mid_batches", batches)) position.mid_epoch_batches = batches.item<int64_t>();
    return position;
  } catch (const c10::Error& e) {
    throw Error(path.string() + ": unreadable checkpoint (" + std::string(e.what_without_backtrace()) + ")");
  }
}

}  // namespace repro
