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

}  // namespace

void save_archive_atomic(torch::serialize::OutputArchive& archive, const std::filesystem::path& path) {
  std::ostringstream bytes;
  try {
    archive.save_to(bytes);
  } catch (const c10::Error& e) {
    throw Error("cannot write " + path.string() + ": " + e.what_without_backtrace());
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
  save_archive_atomic(archive, path);
}

TrainState load_checkpoint(const std::filesystem::path& path, torch::nn::Module& model,
                           torch::optim::Optimizer& optimizer) {
  const std::string restart = "; delete it to restart this run from epoch 1";
  try {
    torch::serialize::InputArchive archive, model_archive, optimizer_archive;
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
    check_history(state);
    return state;
  } catch (const c10::Error& e) {
    throw Error(path.string() + ": unreadable checkpoint (" + std::string(e.what_without_backtrace()) + ")" + restart);
  } catch (const nlohmann::json::exception& e) {
    throw Error(path.string() + ": unreadable checkpoint (its metric history: " + e.what() + ")" + restart);
  } catch (const Error& e) {
    throw Error(path.string() + ": unreadable checkpoint (" + e.what() + ")" + restart);
  }
}

}  // namespace repro
