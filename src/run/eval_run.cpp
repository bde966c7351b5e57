#include "run/eval_run.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <regex>

#include "data/batcher.h"
#include "models/model.h"
#include "run/device.h"
#include "run/model_file.h"
#include "run/record.h"
#include "spec/grid.h"
#include "spec/options.h"
#include "train/precision.h"
#include "train/split_metrics.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace fs = std::filesystem;

namespace {

// The metrics summary.json recorded for `split` at the epoch model.pt holds, or null.
nlohmann::json recorded_metrics(const nlohmann::json& summary, int64_t epoch, const std::string& split) {
  for (const char* which : {"selected", "final"}) {
    const auto it = summary.find(which);
    if (it == summary.end() || !it->is_object() || it->value("epoch", int64_t{0}) != epoch) continue;
    return {{"epoch", epoch},
            {"loss", it->value(split + "_loss", nlohmann::json())},
            {"acc", it->value(split + "_acc", nlohmann::json())}};
  }
  return nullptr;
}

nlohmann::json settings_json(const std::vector<Setting>& settings) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& s : settings) out[s.key] = s.raw;
  return out;
}

}  // namespace

std::string why_not_evaluable(const fs::path& run_dir) {
  const RunFolder folder(run_dir);
  const std::optional<RunStatus> status = folder.recorded_status();
  if (!status || !is_finished(*status))
    return "its summary.json says '" + folder.summary().value_or(nlohmann::json::object()).value("status", "") +
           "': only complete and diverged runs have a model to evaluate";
  if (!fs::exists(model_file_path(run_dir)))
    return "no model.pt (trained before repro kept weights, or with train.save_model=none; move the folder away and "
           "run its spec again to get one)";
  return "";
}

std::vector<fs::path> find_run_folders(const fs::path& path) {
  if (!fs::is_directory(path)) throw Error(path.string() + ": no such folder");
  if (fs::exists(path / "summary.json")) return {path};
  std::vector<fs::path> folders;
  for (const auto& entry : fs::recursive_directory_iterator(path))
    if (entry.is_regular_file() && entry.path().filename() == "summary.json")
      folders.push_back(entry.path().parent_path());
  std::sort(folders.begin(), folders.end());
  return folders;
}

nlohmann::json evaluate_run(const fs::path& run_dir, const EvalRequest& request, DataLoader& loader,
                            torch::Device device) {
  const std::string why = why_not_evaluable(run_dir);
  if (!why.empty()) throw Error(run_dir.string() + ": " + why);
  const auto start = std::chrono::steady_clock::now();
  const RunFolder folder(run_dir);
  const nlohmann::json summary = *folder.summary();
  const RunSpec spec = read_run_spec(folder.spec_path());
  const fs::path model_path = model_file_path(run_dir);
  ClassifierPtr model;
  ModelFileInfo file_info;
  nlohmann::json points = nlohmann::json::array();
  for (const auto& settings : eval_points(request)) {
    Config config = spec.config;
    for (const auto& s : settings) config.set(s.key, s.raw, s.where);
    const RunOptions options = run_options(config);  // this point's settings, converted once
    const RunData data = loader.run_data(spec.dataset, options);
    if (!model) {  // the allowed keys change no shape: one model serves every point
      model = build_model(options.model, data.info);
      file_info = load_model_file(model_path, *model,
                                  run_identity(spec.experiment, spec.profile, spec.dataset, spec.model_config, spec.seed));
      model->to(device);
    }
    const Split split = resident_split(request.split == "val" ? data.val : data.test, device);
    if (split.size() == 0) throw Error(run_dir.string() + ": its " + request.split + " split is empty");
    const TrainOptions& train = options.train;
    const auto batcher = make_batcher(data.info, options.data, device);
    const auto [loss, acc] =
        split_metrics(*model, split, *batcher, device, {train.eval_batch_size, train.eval_tokens},
                      resolve_precision(train.precision, device));
    const std::string label = request.levels.key.empty() ? request.name : level_label(settings.back(), options);
    points.push_back({{"label", label},
                      {"overrides", settings_json(settings)},
                      {"loss", loss},
                      {"acc", acc},
                      {"examples", split.size()},
                      {"partial", data.partial()},
                      {"notes", data.notes}});
  }
  const nlohmann::json environment = environment_record(device);
  nlohmann::json out = {
      {"name", request.name},
      {"split", request.split},
      {"run",
       {{"experiment", spec.experiment},
        {"profile", spec.profile},
        {"model_config", spec.model_config},
        {"dataset", spec.dataset},
        {"seed", spec.seed}}},
      {"model_file", {{"file", model_path.filename().string()}, {"epoch", file_info.epoch}, {"rule", file_info.rule}}},
      {"overrides", settings_json(request.overrides)},
      {"levels", request.levels.key.empty()
                     ? nlohmann::json()
                     : nlohmann::json{{"key", request.levels.key}, {"values", request.levels.values}}},
      {"points", points},
      {"recorded", request.overrides.empty() && request.levels.key.empty()
                       ? recorded_metrics(summary, file_info.epoch, request.split)
                       : nlohmann::json()},
      {"environment", environment},
      {"git_commit", environment.at("git_commit")},
      {"wall_seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()},
      {"evaluated_at", utc_now()},
  };
  fs::create_directories(run_dir / "eval");
  write_file_atomic(run_dir / "eval" / (request.name + ".json"), out.dump(2) + "\n");
  return out;
}

}  // namespace repro
