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
#include "spec/keys.h"
#include "spec/options.h"
#include "train/precision.h"
#include "train/split_metrics.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace fs = std::filesystem;

namespace {

bool is_noise_key(const std::string& key) { return starts_with(key, "data.noise."); }

std::string unquote(const std::string& text) {
  return text.size() >= 2 && text.front() == '"' && text.back() == '"' ? text.substr(1, text.size() - 2) : text;
}

void set_header_field(RunSpec& spec, const std::string& key, const std::string& value, const std::string& where) {
  if (key == "experiment") spec.experiment = value;
  if (key == "profile") spec.profile = value;
  if (key == "model_config") spec.model_config = unquote(value);
  if (key == "dataset") spec.dataset = value;
  if (key == "seed") {
    char* end = nullptr;
    spec.seed = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0') throw Error(where + ": seed: expected a whole number, got '" + value + "'");
  }
}

// "data.noise.level=0.1" -> "gaussian 0.1" (the noise kind of `config`), other keys "test_limit=100".
std::string point_label(const Setting& level, const Config& config) {
  if (level.key == "data.noise.level") return config.text("data.noise.kind") + " " + level.raw;
  return split(level.key, '.').back() + "=" + level.raw;
}

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

RunSpec read_run_spec(const fs::path& path) {
  if (!fs::exists(path)) throw Error(path.string() + ": no such file (the run's resolved spec)");
  RunSpec spec;
  spec.config = Config::defaults();
  std::vector<std::string> open;  // the section path at the current depth
  const auto lines = split_lines(read_file(path));
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    const std::string where = path.string() + ":" + std::to_string(i + 1);
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    const size_t indent = line.find_first_not_of(' ');
    if (indent % 2 != 0 || indent / 2 > open.size()) throw Error(where + ": unexpected indentation");
    open.resize(indent / 2);
    const std::string body = trim(line.substr(indent));
    const std::string prefix = open.empty() ? "" : join(open, ".") + ".";
    if (body.back() == ':' && !find_key(prefix + body.substr(0, body.size() - 1))) {
      open.push_back(body.substr(0, body.size() - 1));  // a section
      continue;
    }
    const auto colon = body.find(':');
    if (colon == std::string::npos) throw Error(where + ": expected 'key: value'");
    const std::string leaf = body.substr(0, colon), value = trim(body.substr(colon + 1));
    if (open.empty())
      set_header_field(spec, leaf, value, where);
    else if (!find_key(prefix + leaf) || spec.config.text(prefix + leaf) != value)  // defaults stay as written
      spec.config.set(prefix + leaf, value, where);
  }
  if (spec.dataset.empty() || spec.experiment.empty())
    throw Error(path.string() + ": no 'experiment' or 'dataset' line (not a spec.resolved.yaml of repro)");
  return spec;
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

const std::vector<std::string>& eval_override_keys() {
  static const std::vector<std::string> keys = {"data.noise.split", "data.noise.kind", "data.noise.level",
                                                "data.noise.seed",  "data.test_limit", "data.val_limit",
                                                "data.verify"};
  return keys;
}

void check_eval_request(EvalRequest& request) {
  if (request.split != "test" && request.split != "val")
    throw Error("--split: got '" + request.split + "', expected test or val");
  std::vector<Setting> all = request.overrides;
  if (!request.levels.key.empty()) all.push_back({request.levels.key, "", request.levels.where});
  const auto& allowed = eval_override_keys();
  for (size_t i = 0; i < all.size(); ++i) {
    const Setting& s = all[i];
    if (std::find(allowed.begin(), allowed.end(), s.key) == allowed.end())
      throw Error(s.where + ": key '" + s.key + "' cannot change in an evaluation (the model and its training are " +
                  "the run's); expected one of " + join(allowed, ", "));
    for (size_t j = 0; j < i; ++j)
      if (all[j].key == s.key)
        throw Error(s.where + ": key '" + s.key + "' is given twice (also " + all[j].where + ")");
    if (is_noise_key(s.key) && request.split == "val")
      throw Error(s.where + ": noise is added to the train and test splits only; evaluate noise with --split test");
  }
  if (request.name.empty()) {
    if (!all.empty())
      throw Error("give --name NAME for an evaluation with changed settings (it is written to eval/NAME.json)");
    request.name = request.split;
  }
  if (!std::regex_match(request.name, std::regex("[A-Za-z0-9][A-Za-z0-9._-]*")))
    throw Error("--name: got '" + request.name + "', expected letters, digits, '.', '_' or '-' (a file name)");
}

std::vector<std::vector<Setting>> eval_points(const EvalRequest& request) {
  std::vector<Setting> base = request.overrides;
  const auto given = [&](const std::string& key) {
    return request.levels.key == key ||
           std::any_of(base.begin(), base.end(), [&](const Setting& s) { return s.key == key; });
  };
  const bool noise = is_noise_key(request.levels.key) ||
                     std::any_of(base.begin(), base.end(), [](const Setting& s) { return is_noise_key(s.key); });
  if (noise && !given("data.noise.split"))
    base.push_back({"data.noise.split", request.split, "--split (noise on the evaluated split)"});
  if (request.levels.key.empty()) return {base};
  std::vector<std::vector<Setting>> points;
  for (const auto& value : request.levels.values) {
    points.push_back(base);
    points.back().push_back({request.levels.key, value, request.levels.where});
  }
  return points;
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
    const RunData data = loader.run_data(spec.dataset, config);
    if (!model) {  // the allowed keys change no shape: one model serves every point
      model = build_model(model_options(config), data.info);
      file_info = load_model_file(model_path, *model,
                                  run_identity(spec.experiment, spec.profile, spec.dataset, spec.model_config, spec.seed));
      model->to(device);
    }
    const Split split = resident_split(request.split == "val" ? data.val : data.test, device);
    if (split.size() == 0) throw Error(run_dir.string() + ": its " + request.split + " split is empty");
    const TrainOptions train = train_options(config);
    const auto batcher = make_batcher(data.info, config, device);
    const auto [loss, acc] =
        split_metrics(*model, split, *batcher, device, train.eval_batch_size, resolve_precision(train.precision, device));
    const std::string label = request.levels.key.empty() ? request.name : point_label(settings.back(), config);
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
