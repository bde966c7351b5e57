#include "train/checkpoint.h"

#include "util/error.h"
#include "util/files.h"

namespace repro {

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
  const auto tmp = temp_sibling(path);
  archive.save_to(tmp.string());
  commit_file(tmp, path);
}

TrainState load_checkpoint(const std::filesystem::path& path, torch::nn::Module& model,
                           torch::optim::Optimizer& optimizer) {
  try {
    torch::serialize::InputArchive archive, model_archive, optimizer_archive;
    archive.load_from(path.string());
    archive.read("model", model_archive);
    archive.read("optimizer", optimizer_archive);
    model.load(model_archive);
    optimizer.load(optimizer_archive);
    TrainState state;
    torch::Tensor value;
    archive.read("epochs_done", value);
    state.epochs_done = value.item<int64_t>();
    archive.read("step", value);
    state.step = value.item<int64_t>();
    archive.read("wall_seconds", value);
    state.wall_seconds = value.item<double>();
    c10::IValue history;
    archive.read("history_json", history);
    state.history_json = history.toStringRef();
    return state;
  } catch (const c10::Error& e) {
    throw Error(path.string() + ": unreadable checkpoint (" + std::string(e.what_without_backtrace()) +
                "); delete it to restart this run from epoch 1");
  }
}

}  // namespace repro
