#include "run/eval_run.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <chrono>
#include <regex>

#include "data/batcher.h"
#include "models/model.h"
#include "run/device.h"
#include "run/model_file.h"
#include "record/folder.h"
#include "record/run_record.h"
#include "spec/grid.h"
#include "spec/options.h"
#include "train/precision.h"
#include "train/split_metrics.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"
#include "util/version.h"

namespace repro {

namespace fs = std::filesystem;

namespace {

// What summary.json recorded for `split` at the epoch model.pt holds (the selected or the final epoch), into
// `out`; nothing when neither is that epoch.
void take_recorded_metrics(const RunRecord& summary, int64_t epoch, const std::string& split, EvalRecord& out) {
  for (const auto* recorded : {&summary.selected, &summary.final}) {
    if (!*recorded || (*recorded)->epoch != epoch) continue;
    const auto value = [&](Metric metric) {
      const auto it = (*recorded)->metrics.find(metric);
      return it == (*recorded)->metrics.end() ? std::nullopt : it->second;
    };
    const bool val = split == "val";  // repro eval --split test | val
    out.recorded_epoch = epoch;
    out.recorded_loss = value(val ? Metric::ValLoss : Metric::TestLoss);
    out.recorded_acc = value(val ? Metric::ValAcc : Metric::TestAcc);
    return;
  }
}

SettingPairs settings_pairs(const std::vector<Setting>& settings) {
  std::map<std::string, std::string> by_key;  // one value a key, the last given (as a JSON object kept it)
  for (const auto& s : settings) by_key[s.key] = s.raw;
  return {by_key.begin(), by_key.end()};
}

}  // namespace

std::string why_not_evaluable(const fs::path& run_dir) {
  const RunFolder folder(run_dir);
  const std::optional<RunRecord> summary = read_run_record_if_any(folder.summary_path());
  if (!summary || !is_finished(summary->status))
    return "its summary.json says '" + (summary ? name_of(summary->status) : std::string()) +
           "': only complete and diverged runs have a model to evaluate";
  if (!fs::exists(folder.model_path()))
    return "no model.pt (trained before repro kept weights, or with train.save_model=none; move the folder away and "
           "run its spec again to get one)";
  return "";
}

std::vector<fs::path> find_run_folders(const fs::path& path) {
  if (!fs::is_directory(path)) throw Error(path.string() + ": no such folder");
  if (fs::exists(RunFolder(path).summary_path())) return {path};
  std::vector<fs::path> folders;
  for (const auto& entry : fs::recursive_directory_iterator(path))
    if (entry.is_regular_file() && entry.path().filename() == kSummaryFile)
      folders.push_back(entry.path().parent_path());
  std::sort(folders.begin(), folders.end());
  return folders;
}

EvalRecord evaluate_run(const fs::path& run_dir, const EvalRequest& request, DataLoader& loader,
                        torch::Device device) {
  const std::string why = why_not_evaluable(run_dir);
  if (!why.empty()) throw Error(run_dir.string() + ": " + why);
  const auto start = std::chrono::steady_clock::now();
  const RunFolder folder(run_dir);
  const RunRecord summary = read_run_record(folder.summary_path());
  const RunSpec spec = read_run_spec(folder.spec_path());
  ClassifierPtr model;
  ModelFileInfo file_info;
  EvalRecord out;
  for (const auto& settings : eval_points(request)) {
    Config config = spec.config;
    for (const auto& s : settings) config.set(s.key, s.raw, s.where);
    const RunOptions options = run_options(config);  // this point's settings, converted once
    const RunData data = loader.run_data(spec.dataset, options);
    if (!model) {  // the allowed keys change no shape: one model serves every point
      model = build_model(options.model, data.info);
      file_info = load_model_file(folder.model_path(), *model, spec.id());
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
    out.points.push_back({label, settings_pairs(settings), loss, acc, static_cast<int64_t>(split.size()),
                          data.partial(), data.notes});
  }
  out.name = request.name, out.split = request.split;
  out.experiment = spec.experiment, out.profile = spec.profile, out.model_config = spec.model_config;
  out.dataset = spec.dataset, out.seed = spec.seed;
  out.model_file = folder.model_path().filename().string();
  out.model_epoch = file_info.epoch, out.model_rule = file_info.rule;
  out.overrides = settings_pairs(request.overrides);
  out.levels_key = request.levels.key, out.levels_values = request.levels.values;
  if (request.overrides.empty() && request.levels.key.empty())
    take_recorded_metrics(summary, file_info.epoch, request.split, out);
  out.environment = environment_record(device);
  out.git_commit = git_commit();
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.evaluated_at = utc_now();
  write_eval_record(folder.eval_path(request.name), out);
  return out;
}

}  // namespace repro
