// repro rollout RUN_DIR [RUN_DIR...]: attention rollout of trained image runs (their model.pt) on the
// same test examples, side by side in one PNG (Figure 2 of the DGSA paper), with an index JSON.
#include <spdlog/spdlog.h>

#include <iostream>

#include "analysis/figure.h"
#include "analysis/rollout.h"
#include "cli/cli.h"
#include "data/batcher.h"
#include "data/registry.h"
#include "models/model.h"
#include "run/device.h"
#include "run/evaluate.h"
#include "run/model_file.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"
#include "util/version.h"

namespace repro {

namespace {

namespace fs = std::filesystem;

struct RolloutArguments {
  std::vector<std::string> runs;
  int64_t examples = 4;
  std::string indices, method = "rollout", out = "rollout", data_root, device = "cpu";
  int threads = 0;
};

struct LoadedRun {
  fs::path dir;
  RunSpec spec;
  RunData data;
  ClassifierPtr model;
  ModelOptions options;
  ModelFileInfo file;
};

LoadedRun load_run(const fs::path& dir, DataLoader& loader, torch::Device device) {
  const std::string why = why_not_evaluable(dir);
  if (!why.empty()) throw Error(dir.string() + ": " + why);
  LoadedRun run{dir, read_run_spec(dir / "spec.resolved.yaml"), {}, nullptr, {}, {}};
  if (find_dataset(run.spec.dataset).is_text())
    throw Error(dir.string() + ": a text run (" + run.spec.dataset +
                "); rollout renders image runs only so far (token strips are not implemented)");
  run.data = loader.run_data(run.spec.dataset, run.spec.config);
  run.options = model_options(run.spec.config);
  run.model = build_model(run.options, run.data.info);
  run.file = load_model_file(model_file_path(dir), *run.model);
  run.model->to(device);
  run.model->eval();
  return run;
}

std::vector<int64_t> example_indices(const RolloutArguments& args, int64_t test_size) {
  std::vector<int64_t> indices;
  if (args.indices.empty())
    for (int64_t i = 0; i < std::min(args.examples, test_size); ++i) indices.push_back(i);
  for (const auto& text : split(args.indices, ',')) {
    if (trim(text).empty()) continue;
    char* end = nullptr;
    const long long value = std::strtoll(trim(text).c_str(), &end, 10);
    if (*end != '\0' || value < 0 || value >= test_size)
      throw Error("--indices: got '" + text + "', expected whole numbers from 0 to " + std::to_string(test_size - 1) +
                  " (positions in the test split)");
    indices.push_back(value);
  }
  if (indices.empty()) throw Error("no examples: the test split is empty or --examples is 0");
  return indices;
}

std::string class_name(const DatasetInfo& info, int64_t label) {
  return label < static_cast<int64_t>(info.class_names.size()) ? info.class_names[label] : std::to_string(label);
}

// One column of the figure: the run's relevance map of each example and its predictions.
RolloutColumn rollout_column(LoadedRun& run, const torch::Tensor& indices, RolloutMethod method, torch::Device device) {
  torch::NoGradGuard no_grad;
  const Split test = resident_split(run.data.test, device);
  const auto batcher = make_batcher(run.data.info, run.spec.config, device);
  const Batch x = batcher->inputs(test, indices_for(test, indices), /*train=*/false);
  std::vector<torch::Tensor> maps;                                                  // per block (B, H, N, N)
  const auto predictions = run.model->forward(x, &maps).argmax(1).to(torch::kCPU);  // (B,)
  const auto rolled = roll_out(maps, method).to(torch::kCPU);                       // (B, N, N)
  const bool cls = run.options.pool == Pool::Cls;  // else the head sees the mean over every token
  const auto every_token = torch::ones({rolled.size(0), rolled.size(1)}, torch::kBool);
  const auto relevance = token_relevance(rolled, cls, cls ? torch::Tensor() : every_token);  // (B, N)
  const int64_t gh = run.data.info.height / run.options.patch, gw = run.data.info.width / run.options.patch;
  RolloutColumn column;
  column.title = run.spec.model_config;
  const auto labels = run.data.test.labels.index_select(0, indices.to(run.data.test.labels.device())).to(torch::kCPU);
  for (int64_t b = 0; b < indices.size(0); ++b) {
    column.maps.push_back(relevance[b].slice(0, 1, 1 + gh * gw).reshape({gh, gw}));  // patches, class token left out
    const int64_t predicted = predictions[b].item<int64_t>();
    column.captions.push_back("pred " + class_name(run.data.info, predicted));
    column.correct.push_back(predicted == labels[b].item<int64_t>());
  }
  return column;
}

void run_rollout(const RolloutArguments& args) {
  configure_threads(args.threads);
  const RolloutMethod method = rollout_method(args.method);
  DataLoader loader(resolve_data_root(args.data_root));
  const torch::Device device = resolve_device(args.device);
  std::vector<LoadedRun> runs;
  for (const auto& dir : args.runs) {
    runs.push_back(load_run(dir, loader, device));
    if (runs.back().spec.dataset != runs.front().spec.dataset ||
        runs.back().data.test.size() != runs.front().data.test.size())
      throw Error(dir + ": its test split (" + runs.back().spec.dataset + ", " +
                  std::to_string(runs.back().data.test.size()) + " examples) is not the one of " + args.runs.front() +
                  "; rollout compares runs on the same examples");
  }
  const LoadedRun& first = runs.front();
  const auto picked = example_indices(args, first.data.test.size());
  const auto indices = torch::tensor(picked, torch::kInt64);
  std::vector<RolloutExample> examples;
  for (const auto i : picked)
    examples.push_back(
        {first.data.test.inputs[i].to(torch::kCPU),
         "#" + std::to_string(i) + " " + class_name(first.data.info, first.data.test.labels[i].item<int64_t>())});
  std::vector<RolloutColumn> columns;
  nlohmann::json index = {{"method", args.method}, {"dataset", first.spec.dataset}, {"indices", picked}, {"runs", {}}};
  for (auto& run : runs) {
    columns.push_back(rollout_column(run, indices, method, device));
    index["runs"].push_back({{"dir", run.dir.string()},
                             {"model_config", run.spec.model_config},
                             {"seed", run.spec.seed},
                             {"epoch", run.file.epoch},
                             {"predictions", columns.back().captions}});
  }
  fs::create_directories(args.out);
  const std::string stem = first.spec.dataset + "_" + args.method;
  const cv::Mat grid =
      rollout_grid(examples, columns, first.spec.dataset + ": attention " + args.method + ", test examples");
  write_png(fs::path(args.out) / (stem + ".png"), grid);
  write_file_atomic(fs::path(args.out) / (stem + ".json"), index.dump(2) + "\n");
  std::cout << (fs::path(args.out) / (stem + ".png")).string() << " (" << grid.cols << "x" << grid.rows << ")\n";
}

}  // namespace

void add_rollout_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("rollout", "Attention rollout of trained image runs on the same test examples");
  auto args = std::make_shared<RolloutArguments>();
  command->add_option("runs", args->runs, "Run folders with model.pt (image datasets), one column each")->required();
  auto* examples = command->add_option("--examples", args->examples, "The first N test examples (default 4)")
                       ->check(CLI::PositiveNumber);
  command->add_option("--indices", args->indices, "Test examples by position, e.g. 3,17,42")->excludes(examples);
  command->add_option("--method", args->method, "rollout | last-layer | excitatory (docs/models.md)")
      ->check(CLI::IsMember({"rollout", "last-layer", "excitatory"}));
  command->add_option("--out", args->out, "Folder for <dataset>_<method>.png and .json (default rollout/)");
  command->add_option("--data-root", args->data_root, "Dataset folder (default $REPRO_DATA, else ./datasets)");
  command->add_option("--device", args->device, "auto | cpu | cuda")->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  command->add_option("--threads", args->threads, "CPU threads for LibTorch (default: all cores)")
      ->check(CLI::NonNegativeNumber);
  command->callback([args, &exit_code] {
    run_rollout(*args);
    exit_code = 0;
  });
}

}  // namespace repro
