// repro rollout RUN_DIR [RUN_DIR...] [KEY=VALUE...]: attention rollout of trained runs (their model.pt) on
// the same test examples: images side by side in one PNG (Figure 2 of the DGSA paper), text as token
// strips, a PNG and an HTML page per example (Figure 3), each with an index JSON.
#include <spdlog/spdlog.h>

#include <iostream>

#include "analysis/figure.h"
#include "analysis/rollout.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "cli/rollout_run.h"
#include "cli/rollout_text.h"
#include "data/batcher.h"
#include "data/registry.h"
#include "models/attention/map_probe.h"
#include "models/model.h"
#include "run/device.h"
#include "run/eval_run.h"
#include "run/model_file.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"
#include "util/version.h"

namespace repro {

namespace {

namespace fs = std::filesystem;

struct RolloutArguments : TrainedRunArguments {  // targets: run folders and KEY=VALUE data overrides
  RolloutArguments() { device = DeviceChoice::Cpu; }
  std::vector<std::string> matches;  // --match TEXT (text runs)
  int64_t examples = 4;
  std::string indices, method = "rollout", out = "rollout";
};

std::vector<int64_t> example_indices(const RolloutArguments& args, int64_t test_size) {
  std::vector<int64_t> indices;
  if (args.indices.empty() && args.matches.empty())
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
  if (indices.empty() && args.matches.empty()) throw Error("no examples: the test split is empty or --examples is 0");
  return indices;
}

// One column of the figure: the run's relevance map of each example and its predictions.
RolloutColumn rollout_column(RolloutRun& run, const torch::Tensor& indices, RolloutMethod method,
                             torch::Device device) {
  torch::NoGradGuard no_grad;
  const Split test = resident_split(run.data.test, device);
  const auto batcher = make_batcher(run.data.info, run.options.data, device);
  const Batch x = batcher->inputs(test, indices_for(test, indices), /*train=*/false);
  AttentionMapProbe probe;                                                   // per block (B, H, N, N)
  const auto predictions = run.model->forward(x).argmax(1).to(torch::kCPU);  // (B,)
  const auto rolled = roll_out(probe.maps(), method).to(torch::kCPU);        // (B, N, N)
  const bool cls = run.options.model.pool == Pool::Cls;  // else the head sees the mean over every token
  const auto every_token = torch::ones({rolled.size(0), rolled.size(1)}, torch::kBool);
  const auto relevance = token_relevance(rolled, cls, cls ? torch::Tensor() : every_token);  // (B, N)
  const int64_t patch = run.options.model.patch, gh = run.data.info.height / patch, gw = run.data.info.width / patch;
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

// The image figure: one PNG grid of every run's maps and an index JSON.
void render_image_rollout(std::vector<RolloutRun>& runs, const std::vector<int64_t>& picked, RolloutMethod method,
                          const RolloutArguments& args, torch::Device device) {
  const RolloutRun& first = runs.front();
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

// The data overrides of the targets (the keys `repro eval` may change), checked; the run folders into *runs.
std::vector<Setting> split_targets(const std::vector<std::string>& targets, std::vector<std::string>* runs) {
  RunTargets split = split_run_targets(targets);
  EvalRequest request;
  request.name = "rollout";
  request.overrides = std::move(split.overrides);
  check_eval_request(request);
  *runs = std::move(split.folders);
  if (runs->empty()) throw Error("no run folder given (only KEY=VALUE overrides)");
  return eval_points(request).front();
}

bool same_test_split(const RolloutRun& a, const RolloutRun& b) {
  if (a.spec.dataset != b.spec.dataset || a.data.test.size() != b.data.test.size()) return false;
  return !find_dataset(a.spec.dataset).is_text() || torch::equal(a.data.test.inputs, b.data.test.inputs);
}

void run_rollout(const RolloutArguments& args) {
  configure_threads(checked_threads(args.threads));
  const RolloutMethod method = rollout_method(args.method);
  std::vector<std::string> dirs;
  const std::vector<Setting> overrides = split_targets(args.targets, &dirs);
  DataLoader loader(resolve_data_root(args.data_root));
  const torch::Device device = resolve_device(args.device);
  std::vector<RolloutRun> runs;
  for (const auto& dir : dirs) {
    runs.push_back(load_rollout_run(dir, overrides, loader, device));
    if (!same_test_split(runs.back(), runs.front()))
      throw Error(dir + ": its test split (" + runs.back().spec.dataset + ", " +
                  std::to_string(runs.back().data.test.size()) + " examples) is not the one of " + dirs.front() +
                  "; rollout compares runs on the same examples (text runs: the same tokens)");
  }
  const RolloutRun& first = runs.front();
  std::vector<int64_t> picked = example_indices(args, first.data.test.size());
  if (!find_dataset(first.spec.dataset).is_text()) {
    if (!args.matches.empty())
      throw Error("--match picks text examples; " + first.spec.dataset + " is an image dataset");
    render_image_rollout(runs, picked, method, args, device);
    return;
  }
  const TestTexts texts = test_texts(loader, first.spec.dataset, first.options);
  for (const auto& needle : args.matches) picked.push_back(find_text(texts.texts, needle));
  for (const auto& path : render_text_rollout(runs, texts, {picked, method, args.method, args.out}, device))
    std::cout << path.string() << "\n";
}

}  // namespace

void add_rollout_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<RolloutArguments>();
  auto* command =
      add_trained_run_command(app, "rollout", "Attention rollout of trained runs on the same test examples", *args,
                              "Run folders with model.pt (one column or block each), and data overrides "
                              "KEY=VALUE (data.test_limit=0, data.noise.*: the keys repro eval takes)");
  auto* examples = hinted(command->add_option("--examples", args->examples, "The first N test examples (default 4)"),
                          whole_number_at_least(1));
  command->add_option("--indices", args->indices, "Test examples by position, e.g. 3,17,42")->excludes(examples);
  command
      ->add_option("--match", args->matches,
                   "Text runs: the first test example whose text contains TEXT (repeatable; with --indices)")
      ->excludes(examples);
  hinted(command->add_option("--method", args->method, "rollout | last-layer | excitatory (docs/models.md)"),
         CLI::IsMember({"rollout", "last-layer", "excitatory"}));
  command->add_option("--out", args->out,
                      "Folder for <dataset>_<method>.png and .json; text: <dataset>_<method>_<position>.png and "
                      ".html per example (default rollout/)");
  add_trained_run_resources(*command, *args);
  command->callback([args, &exit_code] {
    run_rollout(*args);
    exit_code = 0;
  });
}

}  // namespace repro
