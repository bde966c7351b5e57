#include "run/model_file.h"

#include <spdlog/spdlog.h>

#include <map>

#include "run/selection.h"
#include "train/checkpoint.h"
#include "util/error.h"
#include "util/files.h"
#include "util/sha256.h"
#include "util/strings.h"

namespace repro {

namespace {

std::string shape_text(at::IntArrayRef sizes) {
  std::vector<std::string> parts;
  for (const auto size : sizes) parts.push_back(std::to_string(size));
  return "[" + join(parts, ", ") + "]";
}

// Every parameter and buffer of `model` by its path, with its shape.
std::map<std::string, std::vector<int64_t>> shapes_of(torch::nn::Module& model) {
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const auto& item : model.named_parameters()) shapes[item.key()] = item.value().sizes().vec();
  for (const auto& item : model.named_buffers()) shapes[item.key()] = item.value().sizes().vec();
  return shapes;
}

ModelFileInfo read_info(torch::serialize::InputArchive& archive, const std::filesystem::path& path) {
  c10::IValue epoch, rule, run, sha;
  if (!archive.try_read("repro_epoch", epoch) || !epoch.isInt() || !archive.try_read("repro_rule", rule) ||
      !rule.isString())
    throw Error(path.string() + ": not a repro model file (no repro_epoch and repro_rule attributes)");
  ModelFileInfo info{epoch.toInt(), rule.toStringRef(), "", ""};
  if (archive.try_read("repro_run", run) && run.isString()) info.run = run.toStringRef();  // absent before 0.2.1
  if (archive.try_read("repro_spec_sha256", sha) && sha.isString()) info.spec_sha256 = sha.toStringRef();
  return info;
}

// A model.pt belongs to the run whose folder holds it: one copied from another run's folder is refused.
void check_owner(const std::filesystem::path& path, const ModelFileInfo& info, const RunId& owner) {
  const std::string run = owner.key();
  if (info.run.empty()) {
    spdlog::warn("{}: written before repro recorded which run wrote a model.pt; not checked against its folder",
                 path.string());
    return;
  }
  if (info.run != run)
    throw Error(path.string() + ": written by the run " + info.run + ", not by this folder's run " + run +
                " (copied from another run's folder?); evaluate the folder it belongs to");
  const auto spec = RunFolder(path.parent_path()).spec_path();
  if (info.spec_sha256.empty() || !std::filesystem::exists(spec)) return;
  if (const std::string folder_sha = sha256_file(spec); folder_sha != info.spec_sha256)
    throw Error(path.string() + ": written under a spec with sha256 " + info.spec_sha256 + ", but " + spec.string() +
                " has sha256 " + folder_sha +
                " (a model.pt of another --out whose run had other settings?); evaluate the folder it was trained in");
}

}  // namespace

void write_model_file(const std::filesystem::path& path, torch::nn::Module& model, const ModelFileInfo& info) {
  torch::serialize::OutputArchive archive;
  model.save(archive);
  archive.write("repro_epoch", c10::IValue(info.epoch));
  archive.write("repro_rule", c10::IValue(info.rule));
  archive.write("repro_run", c10::IValue(info.run));
  archive.write("repro_spec_sha256", c10::IValue(info.spec_sha256));
  save_archive_atomic(archive, path);
}

ModelFileInfo read_model_file_info(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) throw Error(path.string() + ": no such file");
  regular_file_size(path, kStreamedBytes, "a model file (model.pt)");  // a FIFO would block LibTorch's reader
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(path.string(), torch::Device(torch::kCPU));
    return read_info(archive, path);
  } catch (const c10::Error& e) {
    throw Error(path.string() + ": unreadable model file (" + std::string(e.what_without_backtrace()) + ")");
  }
}

ModelFileInfo load_model_file(const std::filesystem::path& path, torch::nn::Module& model, const RunId& run) {
  if (!std::filesystem::exists(path)) throw Error(path.string() + ": no such file");
  regular_file_size(path, kStreamedBytes, "a model file (model.pt)");  // a FIFO would block LibTorch's reader
  const auto expected = shapes_of(model);
  ModelFileInfo info;
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(path.string(), torch::Device(torch::kCPU));
    info = read_info(archive, path);
    check_owner(path, info, run);
    model.load(archive);  // a missing parameter throws; a wrong shape is taken silently: checked below
  } catch (const c10::Error& e) {
    throw Error(path.string() + ": does not fit the model of its run's spec (" +
                std::string(e.what_without_backtrace()) + ")");
  }
  for (const auto& [name, shape] : shapes_of(model)) {
    const auto it = expected.find(name);
    if (it != expected.end() && it->second != shape)
      throw Error(path.string() + ": '" + name + "' has shape " + shape_text(shape) + " but the run's spec builds " +
                  shape_text(it->second));
  }
  return info;
}

std::optional<ModelFileRecord> model_file_record(const std::filesystem::path& run_dir) {
  const auto path = model_file_path(run_dir);
  if (!std::filesystem::exists(path)) return std::nullopt;
  const ModelFileInfo info = read_model_file_info(path);
  return ModelFileRecord{path.filename().string(), info.epoch, info.rule};
}

std::function<void(torch::nn::Module&, const std::vector<EpochRow>&)> keep_model_hook(std::filesystem::path path,
                                                                                      SaveModel save, SelectRule select,
                                                                                      bool has_validation,
                                                                                      ModelFileInfo owner) {
  auto held = std::make_shared<int64_t>(-1);  // the epoch model.pt holds: -1 = not read yet, 0 = none
  return [=](torch::nn::Module& model, const std::vector<EpochRow>& history) {
    if (history.empty()) {  // a fresh start: a model.pt left from an earlier attempt is not this run's
      std::filesystem::remove(path);
      *held = 0;
      return;
    }
    const EpochChoice keep = epoch_to_keep(save, select, has_validation, history);
    if (keep.epoch == 0 || keep.epoch != history.back().epoch) return;  // the weights at hand are not the ones kept
    if (*held < 0) {
      try {
        *held = std::filesystem::exists(path) ? read_model_file_info(path).epoch : 0;
      } catch (const Error&) {
        *held = 0;  // unreadable (a damaged file): rewritten below
      }
    }
    if (*held == keep.epoch) return;
    write_model_file(path, model, {keep.epoch, name_of(keep.rule), owner.run, owner.spec_sha256});
    *held = keep.epoch;
  };
}

}  // namespace repro
