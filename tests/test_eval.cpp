// model.pt (train.save_model) and `repro eval`: the kept weights reproduce the recorded
// test metrics exactly; noisy evaluations differ and are deterministic.
#include <fmt/format.h>

#include <cstdlib>

#include "catch.h"
#include "data/registry.h"
#include "fault_injector.h"
#include "fixtures.h"
#include "models/model.h"
#include "record/eval_record.h"
#include "report/tables/eval_table.h"
#include "report/tables/stats.h"
#include "run/eval_run.h"
#include "run/model_file.h"
#include "run/runner.h"
#include "run/selection.h"
#include "run_repro.h"
#include "spec/experiment.h"
#include "spec/grid.h"
#include "spec/options.h"
#include "util/files.h"
#include "util/sha256.h"
#include "util/strings.h"

using namespace repro;
using repro::test::Contains;

namespace {

const char* kEvalSpec = R"(experiment: tiny
datasets: [fashion_mnist]
seeds: [3]
model: {dim: 16, depth: 1, heads: 2, patch: 7, dropout: 0.1, ffn: {ratio: 2}}
data: {val_fraction: 0.25, verify: off}
train: {epochs: 3, batch_size: 16, lr: 3e-3}
)";

// Trains kEvalSpec (with `overrides`) into <dir>/<out>; returns the run folder.
std::filesystem::path train_tiny(const test::TempDir& dir, const std::string& out,
                                 const std::vector<std::string>& overrides = {}, int64_t stop_after_epoch = 0,
                                 const std::vector<int64_t>& seeds = {3}) {
  if (!std::filesystem::exists(dir.path() / "data")) test::write_fashion_fixture(dir.path() / "data", 96, 48);
  test::write_text(dir.path() / "tiny.yaml", kEvalSpec);
  Experiment experiment = load_experiment((dir.path() / "tiny.yaml").string());
  for (const auto& text : overrides) experiment.overrides.push_back(parse_override(text));
  experiment.seeds = seeds;
  const test::FaultInjector stop = test::stop_after(stop_after_epoch);
  run_experiment(experiment, test::runner_options(dir, out, &stop));
  return dir.path() / out / "tiny/fashion_mnist/model/seed_3";
}

nlohmann::json summary_of(const std::filesystem::path& run_dir) {
  return nlohmann::json::parse(read_file(run_dir / "summary.json"));
}

EpochRow row(int64_t epoch, double val_acc) {
  EpochRow r;
  r.epoch = epoch;
  r.val_acc = val_acc;
  return r;
}

// model.pt's weight of a one-layer module.
torch::Tensor stored_weight(const std::filesystem::path& path) {
  torch::nn::Linear probe(2, 2);
  load_model_file(path, *probe, RunId{"t", "", "ds", "m"});
  return probe->weight.detach().clone();
}

// Every parameter of the run's model as model.pt holds it.
std::vector<torch::Tensor> stored_parameters(const std::filesystem::path& run_dir) {
  const RunSpec spec = read_run_spec(run_dir / "spec.resolved.yaml");
  const auto model = build_model(model_options(spec.config), find_dataset(spec.dataset).info());
  load_model_file(model_file_path(run_dir), *model, spec.id());
  std::vector<torch::Tensor> out;
  for (const auto& p : model->parameters()) out.push_back(p.detach().clone());
  return out;
}

bool all_equal(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!torch::equal(a[i], b[i])) return false;
  return true;
}

}  // namespace

TEST_CASE("model.pt follows the selected epoch: written when an epoch becomes the selection", "[train]") {
  test::TempDir dir("model_hook");
  const auto path = dir.path() / "model.pt";
  torch::nn::Linear model(2, 2);
  auto hook = keep_model_hook(path, SaveModel::Selected, SelectRule::Auto, /*has_validation=*/true,
                              {0, "", "t/ds/m/seed_0", "0123"});
  test::write_text(path, "stale");
  hook(*model, {});  // a fresh start removes a stale file
  CHECK_FALSE(std::filesystem::exists(path));

  std::vector<EpochRow> history = {row(1, 50)};
  hook(*model, history);
  REQUIRE(read_model_file_info(path).epoch == 1);
  CHECK(read_model_file_info(path).rule == "best_val");
  CHECK(read_model_file_info(path).run == "t/ds/m/seed_0");  // which run wrote it
  CHECK(read_model_file_info(path).spec_sha256 == "0123");
  const auto epoch1 = model->weight.detach().clone();
  CHECK(torch::equal(stored_weight(path), epoch1));

  torch::NoGradGuard no_grad;
  model->weight.add_(1.0);  // epoch 2 is worse: the file keeps epoch 1's weights
  history.push_back(row(2, 40));
  hook(*model, history);
  CHECK(read_model_file_info(path).epoch == 1);
  CHECK(torch::equal(stored_weight(path), epoch1));

  model->weight.add_(1.0);  // epoch 3 is the best so far
  history.push_back(row(3, 60));
  hook(*model, history);
  CHECK(read_model_file_info(path).epoch == 3);
  CHECK(torch::equal(stored_weight(path), model->weight.detach()));

  CHECK(epoch_to_keep(SaveModel::Last, SelectRule::Auto, true, history).epoch == 3);
  CHECK(epoch_to_keep(SaveModel::Selected, SelectRule::Last, true, {row(1, 50), row(2, 40)}).epoch == 2);
  CHECK(epoch_to_keep(SaveModel::Selected, SelectRule::Auto, false, {row(1, 50), row(2, 40)}).epoch == 2);
  CHECK(epoch_to_keep(SaveModel::None, SelectRule::Auto, true, history).epoch == 0);
  CHECK_THROWS_WITH(read_model_file_info(dir.path() / "absent.pt"), Contains("absent.pt: no such file"));
  test::write_text(dir.path() / "bad.pt", "not an archive");
  CHECK_THROWS_WITH(read_model_file_info(dir.path() / "bad.pt"), Contains("bad.pt: unreadable model file"));
}

TEST_CASE("train.select: the earliest best validation epoch, else the last; the rule used is named", "[train]") {
  const std::vector<EpochRow> tied = {row(1, 50), row(2, 60), row(3, 60), row(4, 55)};
  CHECK(selected_epoch(tied, SelectRule::Auto, true).epoch == 2);  // a tie goes to the earlier epoch
  CHECK(selected_epoch(tied, SelectRule::Auto, true).rule == SelectRule::BestVal);
  CHECK(selected_epoch(tied, SelectRule::BestVal, true).epoch == 2);
  CHECK(selected_epoch(tied, SelectRule::Last, true).epoch == 4);
  CHECK(selected_epoch(tied, SelectRule::Auto, false).epoch == 4);  // no validation split: the last epoch
  CHECK(selected_epoch(tied, SelectRule::BestVal, false).rule == SelectRule::Last);
  CHECK(selected_epoch({}, SelectRule::Auto, true).epoch == 0);
}

TEST_CASE("train.save_model: the option and its values", "[spec]") {
  Config config = Config::defaults();
  CHECK(train_options(config).save_model == SaveModel::Selected);
  config.set("train.save_model", "none", "t");
  CHECK(train_options(config).save_model == SaveModel::None);
  CHECK_THROWS_WITH(config.set("train.save_model", "best", "spec.yaml:4"),
                    Contains("spec.yaml:4") && Contains("selected | last | none"));
}

TEST_CASE("a loaded model.pt of the wrong shape is refused naming the parameter", "[train]") {
  test::TempDir dir("model_shape");
  torch::nn::Linear small(2, 2), large(3, 2);
  write_model_file(dir.path() / "model.pt", *small, {1, "last"});
  CHECK_THROWS_WITH(load_model_file(dir.path() / "model.pt", *large, RunId{"t", "", "ds", "m"}),
                    Contains("model.pt: 'weight' has shape [2, 2] but the run's spec builds [2, 3]"));
}

// A seed_1 model.pt copied into seed_0's folder evaluated with exit 0 and showed seed_1's accuracy as seed_0's.
TEST_CASE("eval refuses a model.pt that another run wrote, naming both runs", "[train]") {
  test::TempDir dir("model_owner");
  const auto seed3 = train_tiny(dir, "out", {}, 0, {3, 4});
  const auto seed4 = seed3.parent_path() / "seed_4";
  CHECK(read_model_file_info(model_file_path(seed3)).run == "tiny/fashion_mnist/model/seed_3");
  std::filesystem::copy_file(model_file_path(seed4), model_file_path(seed3),
                             std::filesystem::copy_options::overwrite_existing);
  const auto copied = test::run_repro("eval " + seed3.string() + " --data-root " + (dir.path() / "data").string());
  CHECK(copied.exit_code == 2);
  CHECK_THAT(copied.output, Contains("written by the run tiny/fashion_mnist/model/seed_4, not by this folder's run "
                                     "tiny/fashion_mnist/model/seed_3"));
  const auto rollout = test::run_repro("rollout " + seed3.string() + " --data-root " + (dir.path() / "data").string() +
                                       " --out " + (dir.path() / "rollout").string());
  CHECK(rollout.exit_code == 2);
  CHECK_THAT(rollout.output, Contains("written by the run tiny/fashion_mnist/model/seed_4"));
  const auto own = test::run_repro("eval " + seed4.string() + " --data-root " + (dir.path() / "data").string());
  CHECK(own.exit_code == 0);
}

// Issue 34, point 2: a model.pt of the same run names from another --out, trained with another train.lr, was
// evaluated with exit 0 and a warning. Refused, naming both spec hashes.
TEST_CASE("eval refuses a model.pt trained under another spec than its folder's, naming both hashes", "[train]") {
  test::TempDir dir("model_spec");
  const auto mine = train_tiny(dir, "a");
  const auto other = train_tiny(dir, "b", {"train.lr=0.002"});
  const std::string other_sha = read_model_file_info(model_file_path(other)).spec_sha256;
  const std::string mine_sha = sha256_file(mine / "spec.resolved.yaml");
  REQUIRE(other_sha != mine_sha);
  std::filesystem::copy_file(model_file_path(other), model_file_path(mine),
                             std::filesystem::copy_options::overwrite_existing);
  const auto copied = test::run_repro("eval " + mine.string() + " --data-root " + (dir.path() / "data").string());
  INFO(copied.output);
  CHECK(copied.exit_code == 2);
  CHECK_THAT(copied.output, Contains("written under a spec with sha256 " + other_sha) &&
                                Contains("spec.resolved.yaml has sha256 " + mine_sha));
  CHECK_FALSE(std::filesystem::exists(mine / "eval/test.json"));
}

TEST_CASE("spec.resolved.yaml reads back into the run's config", "[spec]") {
  test::TempDir dir("resolved");
  test::write_text(dir.path() / "tiny.yaml", kEvalSpec);
  Experiment experiment = load_experiment((dir.path() / "tiny.yaml").string());
  experiment.overrides.push_back(parse_override("data.files=a b.bin"));
  const auto runs = expand_grid(experiment, dataset_catalog());
  test::write_text(dir.path() / "spec.resolved.yaml", runs[0].resolved_yaml());
  const RunSpec spec = read_run_spec(dir.path() / "spec.resolved.yaml");
  for (const auto& [key, value] : runs[0].config.values()) {
    INFO(key);
    CHECK(spec.config.text(key) == value);
  }
  CHECK(spec.dataset == "fashion_mnist");
  CHECK(spec.model_config == "model");
  CHECK(spec.seed == 3);
  test::write_text(dir.path() / "bad.yaml", "experiment: x\ndataset: fashion_mnist\nmodel:\n  dim: many\n");
  CHECK_THROWS_WITH(read_run_spec(dir.path() / "bad.yaml"), Contains("bad.yaml:4") && Contains("model.dim"));
}

TEST_CASE("eval reproduces the recorded test metrics exactly; noisy evaluations differ and repeat", "[train]") {
  test::TempDir dir("eval");
  test::ScopedCache cache;
  const auto run_dir = train_tiny(dir, "out");
  const auto summary = summary_of(run_dir);
  REQUIRE(summary["status"] == "complete");
  const int64_t selected = summary["selection"]["epoch"];
  REQUIRE(summary["model_file"]["epoch"] == selected);
  CHECK(read_model_file_info(model_file_path(run_dir)).epoch == selected);

  DataLoader loader(dir.path() / "data");
  EvalRequest clean;
  check_eval_request(clean);
  CHECK(clean.name == "test");
  const auto result = eval_record_json(evaluate_run(run_dir, clean, loader, torch::kCPU));
  REQUIRE(result["points"].size() == 1);
  CHECK(result["points"][0]["acc"].get<double>() == summary["selected"]["test_acc"].get<double>());
  CHECK(result["points"][0]["loss"].get<double>() == summary["selected"]["test_loss"].get<double>());
  CHECK(result["recorded"]["epoch"] == selected);
  CHECK(std::filesystem::exists(run_dir / "eval/test.json"));

  EvalRequest val;
  val.split = "val";
  check_eval_request(val);
  const auto val_result = eval_record_json(evaluate_run(run_dir, val, loader, torch::kCPU));
  CHECK(val_result["points"][0]["acc"].get<double>() == summary["selected"]["val_acc"].get<double>());

  EvalRequest noisy;
  noisy.name = "gaussian";
  noisy.overrides = {parse_override("data.noise.kind=gaussian")};
  noisy.levels = parse_axis("data.noise.level=0.5,1");
  check_eval_request(noisy);
  const auto first = eval_record_json(evaluate_run(run_dir, noisy, loader, torch::kCPU));
  const auto again = eval_record_json(evaluate_run(run_dir, noisy, loader, torch::kCPU));
  REQUIRE(first["points"].size() == 2);
  CHECK(first["points"][0]["label"] == "gaussian 0.5");
  CHECK(first["points"][0]["overrides"]["data.noise.split"] == "test");  // noise goes to the evaluated split
  CHECK(first["points"][0]["loss"].get<double>() != result["points"][0]["loss"].get<double>());
  CHECK(first["points"][1]["loss"].get<double>() != first["points"][0]["loss"].get<double>());
  CHECK(first["points"] == again["points"]);
  CHECK(first["recorded"].is_null());
  const auto written = nlohmann::json::parse(read_file(run_dir / "eval/gaussian.json"));
  CHECK(written["points"] == first["points"]);
}

TEST_CASE("eval refuses keys that change the model or training, and noise on the validation split", "[train]") {
  EvalRequest model_key;
  model_key.name = "x";
  model_key.overrides = {parse_override("model.dim=8")};
  CHECK_THROWS_WITH(check_eval_request(model_key), Contains("override 'model.dim=8'") &&
                                                       Contains("cannot change in an evaluation") &&
                                                       Contains("data.noise.level"));
  EvalRequest val_noise;
  val_noise.name = "x";
  val_noise.split = "val";
  val_noise.overrides = {parse_override("data.noise.kind=speckle")};
  CHECK_THROWS_WITH(check_eval_request(val_noise), Contains("--split test"));
  EvalRequest unnamed;
  unnamed.overrides = {parse_override("data.test_limit=10")};
  CHECK_THROWS_WITH(check_eval_request(unnamed), Contains("give --name NAME"));
  EvalRequest twice;
  twice.name = "x";
  twice.overrides = {parse_override("data.noise.level=0.1")};
  twice.levels = parse_axis("data.noise.level=0.1,0.2");
  CHECK_THROWS_WITH(check_eval_request(twice), Contains("given twice"));
  EvalRequest bad_name;
  bad_name.name = "../x";
  CHECK_THROWS_WITH(check_eval_request(bad_name), Contains("--name: got '../x'"));
}

TEST_CASE("save_model last and none; a resume keeps the model.pt of an undisturbed run", "[train]") {
  test::TempDir dir("save_model");
  test::ScopedCache cache;
  const auto last_dir = train_tiny(dir, "last", {"train.save_model=last"});
  CHECK(summary_of(last_dir)["model_file"]["epoch"] == 3);
  CHECK(summary_of(last_dir)["model_file"]["rule"] == "last");
  const auto none_dir = train_tiny(dir, "none", {"train.save_model=none"});
  CHECK_FALSE(std::filesystem::exists(model_file_path(none_dir)));
  CHECK(summary_of(none_dir)["model_file"].is_null());
  CHECK_THAT(why_not_evaluable(none_dir), Contains("no model.pt"));

  // One epoch, stopped after it (no summary), model.pt lost as if killed before it was written:
  // the resume rewrites it from the checkpoint's weights.
  const auto straight = train_tiny(dir, "straight", {"train.epochs=1"});
  const auto resumed = train_tiny(dir, "resumed", {"train.epochs=1"}, /*stop_after_epoch=*/1);
  REQUIRE(std::filesystem::exists(resumed / "checkpoint.pt"));
  std::filesystem::remove(model_file_path(resumed));
  train_tiny(dir, "resumed", {"train.epochs=1"});
  REQUIRE(summary_of(resumed)["status"] == "complete");
  CHECK(all_equal(stored_parameters(resumed), stored_parameters(straight)));
  CHECK(summary_of(resumed)["model_file"]["epoch"] == 1);
}

TEST_CASE("repro eval on the command line: a folder of runs, one line per run, errors on bad keys", "[cli]") {
  test::TempDir dir("eval_cli");
  test::ScopedCache cache;
  const auto run_dir = train_tiny(dir, "out");
  const std::string out = (dir.path() / "out").string(), data = (dir.path() / "data").string();
  const auto clean = test::run_repro("eval " + out + " --data-root " + data + " --device cpu");
  CHECK(clean.exit_code == 0);
  CHECK_THAT(clean.output, Contains("seed_3: test: test acc") && Contains("(recorded at epoch"));
  const auto bad = test::run_repro("eval " + out + " train.lr=0.1 --name x --data-root " + data);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Contains("repro: error: override 'train.lr=0.1': key 'train.lr' cannot change"));
  std::filesystem::remove(model_file_path(run_dir));
  const auto missing = test::run_repro("eval " + run_dir.string() + " --data-root " + data);
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output, Contains("no model.pt"));
}

TEST_CASE("model.pt loads in Python with torch.jit.load, named like the C++ parameters", "[train]") {
  if (std::system("/usr/bin/python3 -c 'import torch' > /dev/null 2>&1") != 0) {
    WARN("skipped: /usr/bin/python3 has no torch module (apt-get install python3-torch)");
    return;
  }
  test::TempDir dir("python_load");
  torch::nn::Sequential model(torch::nn::Linear(3, 4), torch::nn::LayerNorm(torch::nn::LayerNormOptions({4})));
  write_model_file(dir.path() / "model.pt", *model, {7, "best_val"});
  const std::string script =
      "import torch\n"
      "m = torch.jit.load('" +
      (dir.path() / "model.pt").string() +
      "')\n"
      "sd = m.state_dict()\n"
      "print(sorted(sd), tuple(sd['0.weight'].shape), m.repro_epoch, m.repro_rule)\n";
  test::write_text(dir.path() / "load.py", script);
  const std::string command =
      "/usr/bin/python3 " + (dir.path() / "load.py").string() + " > " + (dir.path() / "out.txt").string() + " 2>&1";
  CHECK(std::system(command.c_str()) == 0);
  CHECK_THAT(read_file(dir.path() / "out.txt"),
             Contains("['0.bias', '0.weight', '1.bias', '1.weight'] (4, 3) 7 best_val"));
}

TEST_CASE("report --eval: mean and std over seeds per level; runs without the evaluation shown", "[report]") {
  test::TempDir dir("eval_report");
  test::ScopedCache cache;
  const auto seed3 = train_tiny(dir, "out", {}, 0, {3, 4});
  const auto seed4 = seed3.parent_path() / "seed_4";
  DataLoader loader(dir.path() / "data");
  EvalRequest noisy;
  noisy.name = "speckle";
  noisy.overrides = {parse_override("data.noise.kind=speckle")};
  noisy.levels = parse_axis("data.noise.level=0.5,2");
  check_eval_request(noisy);
  std::vector<double> at_two;
  for (const auto& run : {seed3, seed4})
    at_two.push_back(eval_record_json(evaluate_run(run, noisy, loader, torch::kCPU))["points"][1]["acc"].get<double>());

  const std::string table = render_eval_report(dir.path() / "out", {"speckle"}, Metric::TestAcc);
  CHECK_THAT(table, Contains("### tiny, eval speckle: eval_acc (%)"));
  CHECK_THAT(table, Contains("| model | speckle 0.5 | speckle 2 |"));
  CHECK_THAT(table, Contains(fmt::format("{:.2f} ± {:.2f}", mean(at_two), sample_std(at_two))));
  CHECK_THAT(table, Contains("over n = 2 seeds"));

  std::filesystem::remove(seed4 / "eval/speckle.json");
  const std::string partly = render_eval_report(dir.path() / "out", {"speckle", "absent"}, Metric::TestLoss);
  CHECK_THAT(partly, Contains("± n/a (1 not evaluated)"));
  CHECK_THAT(partly, Contains("| absent |"));
  CHECK_THAT(partly, Contains("— (2 not evaluated)"));
  CHECK_THAT(partly, Contains("### tiny, eval speckle, absent: eval_loss"));
  const auto cli = test::run_repro("report " + (dir.path() / "out").string() + " --eval speckle");
  CHECK(cli.exit_code == 0);
  CHECK_THAT(cli.output, Contains("| model | speckle 0.5 | speckle 2 |"));
  // --plots with --eval: the table and the evaluation's figure, embedded (it wrote nothing before).
  const auto report = dir.path() / "eval_report.md";
  const auto plots =
      test::run_repro("report " + (dir.path() / "out").string() + " --eval speckle --plots -o " + report.string());
  INFO(plots.output);
  CHECK(plots.exit_code == 0);
  const std::string markdown = read_file(report);
  CHECK_THAT(markdown, Contains("| model | speckle 0.5 | speckle 2 |") && Contains("_eval_speckle.png"));
  CHECK(std::filesystem::exists(dir.path() / "figures"));
  const auto with_compare = test::run_repro("report " + (dir.path() / "out").string() + " --eval speckle --stats");
  CHECK(with_compare.exit_code == 2);
  CHECK_THAT(with_compare.output, Contains("--eval speckle: not with --stats"));
}

TEST_CASE("eval of a text run (DGT): clean reproduces the record, token noise differs and repeats", "[train]") {
  test::TempDir dir("eval_text");
  test::ScopedCache cache;
  test::write_bytes(dir.path() / "data/ag_news/ag_news_csv/train.csv", test::ag_news_csv(80), false);
  test::write_bytes(dir.path() / "data/ag_news/ag_news_csv/test.csv", test::ag_news_csv(40), false);
  test::write_text(dir.path() / "text.yaml", R"(experiment: text
datasets: [ag_news]
seeds: [1]
model: {preset: dgt, dim: 16, depth: 1, heads: 2, ffn: {ratio: 2}}
data: {val_fraction: 0.25, verify: off}
text: {max_len: 16}
train: {epochs: 2, batch_size: 8, lr: 3e-3}
)");
  REQUIRE(run_experiment(load_experiment((dir.path() / "text.yaml").string()), test::runner_options(dir, "out")) == 0);
  const auto run_dir = dir.path() / "out/text/ag_news/model/seed_1";
  const auto summary = summary_of(run_dir);
  DataLoader loader(dir.path() / "data");
  EvalRequest clean;
  check_eval_request(clean);
  const auto result = eval_record_json(evaluate_run(run_dir, clean, loader, torch::kCPU));
  CHECK(result["points"][0]["acc"].get<double>() == summary["selected"]["test_acc"].get<double>());
  CHECK(result["points"][0]["loss"].get<double>() == summary["selected"]["test_loss"].get<double>());
  EvalRequest noisy;
  noisy.name = "drop";
  noisy.overrides = {parse_override("data.noise.kind=token_drop"), parse_override("data.noise.level=0.5")};
  check_eval_request(noisy);
  const auto first = eval_record_json(evaluate_run(run_dir, noisy, loader, torch::kCPU));
  CHECK(first["points"][0]["loss"].get<double>() != result["points"][0]["loss"].get<double>());
  CHECK(eval_record_json(evaluate_run(run_dir, noisy, loader, torch::kCPU))["points"] == first["points"]);
}
