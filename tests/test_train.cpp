// Schedules, resume-equals-uninterrupted, skip-if-complete and changed specs.
#include "catch.h"
#include "data/fashion_mnist.h"
#include "fault_injector.h"
#include "fixtures.h"
#include "models/model.h"
#include "record/run_record.h"
#include "run/runner.h"
#include "spec/experiment.h"
#include "spec/presets.h"
#include "train/optimizer.h"
#include "train/schedule.h"
#include "util/files.h"
#include "util/strings.h"

using namespace repro;
using repro::test::Contains;

namespace {

const char* kTinySpec = R"(experiment: tiny
datasets: [fashion_mnist]
seeds: [3]
model: {dim: 16, depth: 1, heads: 2, patch: 7, dropout: 0.1, ffn: {ratio: 2}}
data: {val_fraction: 0.25, augment: crop_flip, crop_padding: 2, verify: off}
train: {epochs: 3, batch_size: 16, lr: 3e-3, warmup_steps: 3, clip_norm: 1.0, label_smoothing: 0.1}
)";

}  // namespace

TEST_CASE("schedules: warmup, cosine and linear endpoints", "[train]") {
  Schedule s;
  s.options.lr = 1.0;
  s.options.min_lr = 0.1;
  s.options.warmup_steps = 4;
  s.steps_per_epoch = 10;
  s.total_steps = 104;
  CHECK(s.at(0) == Approx(0.25));
  CHECK(s.at(3) == Approx(1.0));
  CHECK(s.at(4) == Approx(1.0));
  CHECK(s.at(54) == Approx(0.55));  // halfway: floor + (peak - floor) / 2
  CHECK(s.at(104) == Approx(0.1));
  s.options.kind = ScheduleKind::Linear;
  CHECK(s.at(54) == Approx(0.55));
  CHECK(s.at(79) == Approx(1.0 - 0.9 * 0.75));
  s.options.kind = ScheduleKind::Cosine;
  s.options.unit = ScheduleUnit::Epoch;
  s.options.warmup_steps = 0;
  s.total_steps = 100;
  CHECK(s.at(0) == Approx(1.0));
  CHECK(s.at(9) == Approx(1.0));  // constant within an epoch
  CHECK(s.at(50) == Approx(0.55));
}

TEST_CASE("the schedule is built from the training options and owns train.lr", "[train]") {
  ScheduleOptions o;
  o.kind = ScheduleKind::Linear;
  o.lr = 0.5;
  o.min_lr = 0.1;
  o.warmup_steps = 2;
  const Schedule s = Schedule::from_options(o, /*epochs=*/3, /*steps_per_epoch=*/10);
  CHECK(s.total_steps == 30);
  CHECK(s.at(0) == Approx(0.25));  // warmup starts at lr / W, not at 0
  CHECK(s.at(1) == Approx(0.5));
  CHECK(s.at(16) == Approx(0.5 - 0.4 * 0.5));
  CHECK(s.at(30) == Approx(0.1));
}

TEST_CASE("a resumed run finishes with exactly the numbers of an uninterrupted run", "[train]") {
  test::TempDir dir("resume");
  test::write_fashion_fixture(dir.path() / "data", 96, 32);
  test::write_text(dir.path() / "tiny.yaml", kTinySpec);
  const Experiment experiment = load_experiment((dir.path() / "tiny.yaml").string());

  REQUIRE(run_experiment(experiment, test::runner_options(dir, "straight")) == 0);
  const test::FaultInjector stop = test::stop_after(1);
  REQUIRE(run_experiment(experiment, test::runner_options(dir, "interrupted", &stop)) == 3);  // stopped after epoch 1
  const auto run_dir = dir.path() / "interrupted/tiny/fashion_mnist/model/seed_3";
  CHECK(std::filesystem::exists(run_dir / "checkpoint.pt"));
  CHECK_FALSE(std::filesystem::exists(run_dir / "summary.json"));
  REQUIRE(run_experiment(experiment, test::runner_options(dir, "interrupted")) == 0);

  const auto straight_dir = dir.path() / "straight/tiny/fashion_mnist/model/seed_3";
  CHECK(test::metrics_without_seconds(run_dir / "metrics.csv") ==
        test::metrics_without_seconds(straight_dir / "metrics.csv"));
  CHECK(split_lines(read_file(run_dir / "metrics.csv")).size() == 4);  // header + 3 epochs
  CHECK_FALSE(std::filesystem::exists(run_dir / "checkpoint.pt"));
  CHECK_THAT(read_file(run_dir / "summary.json"), Contains("\"resumed_from_epoch\": 1"));
}

TEST_CASE("finished runs are skipped; a changed spec is refused without touching them", "[train]") {
  test::TempDir dir("skip");
  test::write_fashion_fixture(dir.path() / "data", 64, 16);
  test::write_text(dir.path() / "tiny.yaml", kTinySpec);
  Experiment experiment = load_experiment((dir.path() / "tiny.yaml").string());
  experiment.overrides.push_back(parse_override("train.epochs=1"));
  REQUIRE(run_experiment(experiment, test::runner_options(dir, "out")) == 0);
  const auto summary = dir.path() / "out/tiny/fashion_mnist/model/seed_3/summary.json";
  const std::string before = read_file(summary);
  REQUIRE(run_experiment(experiment, test::runner_options(dir, "out")) == 0);
  CHECK(read_file(summary) == before);  // not rerun: finished_at unchanged

  experiment.overrides.push_back(parse_override("train.lr=1e-2"));
  CHECK_THROWS_WITH(run_experiment(experiment, test::runner_options(dir, "out")),
                    Contains("holds a run of a different spec") && Contains("train.lr: 0.003 -> 0.01") &&
                        Contains("Nothing was overwritten"));
  CHECK(read_file(summary) == before);
  // The way out is named: the new value as a one-value sweep axis beside the old runs, or another --out.
  CHECK_THROWS_WITH(run_experiment(experiment, test::runner_options(dir, "out")),
                    Contains("repro sweep with --set train.lr=0.01") && Contains("another --out"));
  // A dry run says it before anything starts, and returns.
  RunnerOptions dry = test::runner_options(dir, "out");
  dry.dry_run = true;
  CHECK(run_experiment(experiment, dry) == 0);
  // More epochs for a finished run: why it is another run.
  experiment.overrides.pop_back();
  experiment.overrides.push_back(parse_override("train.epochs=2"));
  CHECK_THROWS_WITH(run_experiment(experiment, test::runner_options(dir, "out")),
                    Contains("train.epochs: 1 -> 2") && Contains("not extended to more epochs"));
  CHECK(read_file(summary) == before);
}

TEST_CASE(
    "make_optimizer: its groups are decayed_parameters key by key; a zero-gradient step scales the decayed "
    "weights by exactly 1 - lr*wd and leaves the exempt ones bit for bit",
    "[train]") {
  Config config = Config::defaults();
  // A differential ViT with RMSNorm: biases, norm weights, the heads' RMSNorm, lambda vectors, embeddings.
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{{"model.dim", "16"},
                                                                                   {"model.heads", "2"},
                                                                                   {"model.depth", "1"},
                                                                                   {"model.patch", "7"},
                                                                                   {"model.attention.kind", "diff"},
                                                                                   {"model.norm", "rmsnorm"}})
    config.set(key, value, "t");
  resolve_settings(config, fashion_mnist_info().traits());
  const double lr = 0.01, weight_decay = 0.1;
  for (const NoDecay rule : {NoDecay::Paper, NoDecay::VectorsEmbeddings}) {
    INFO(name_of(rule));
    torch::manual_seed(0);
    const ClassifierPtr model = build_model(model_options(config), fashion_mnist_info());
    OptimizerOptions options;
    options.weight_decay = weight_decay;
    options.no_decay = rule;
    const auto optimizer = make_optimizer(*model, options, lr);
    const auto decays = decayed_parameters(*model, rule);
    std::map<const void*, std::string> name_of_tensor;
    for (const auto& item : model->named_parameters()) name_of_tensor[item.value().unsafeGetTensorImpl()] = item.key();
    REQUIRE(optimizer->param_groups().size() == 2);
    std::map<std::string, int> group_of;  // parameter name -> its group (0: with decay, 1: without)
    for (int g = 0; g < 2; ++g)
      for (const auto& p : optimizer->param_groups()[static_cast<size_t>(g)].params())
        CHECK(group_of.emplace(name_of_tensor.at(p.unsafeGetTensorImpl()), g).second);  // each once
    CHECK(group_of.size() == decays.size());
    int exempt = 0;
    for (const auto& [name, decayed] : decays) {
      INFO(name);
      CHECK(group_of.at(name) == (decayed ? 0 : 1));
      exempt += decayed ? 0 : 1;
    }
    CHECK(exempt > 0);
    const auto& with = static_cast<const torch::optim::AdamWOptions&>(optimizer->param_groups()[0].options());
    const auto& without = static_cast<const torch::optim::AdamWOptions&>(optimizer->param_groups()[1].options());
    CHECK(with.weight_decay() == weight_decay);
    CHECK(without.weight_decay() == 0.0);

    // One step with zero gradients: Adam's update is 0, so only the decoupled decay moves a weight.
    std::map<std::string, torch::Tensor> before;
    for (auto& item : model->named_parameters()) {
      before[item.key()] = item.value().detach().clone();
      item.value().mutable_grad() = torch::zeros_like(item.value());
    }
    optimizer->step();
    for (const auto& item : model->named_parameters()) {
      INFO(item.key());
      const torch::Tensor& was = before.at(item.key());
      if (decays.at(item.key()))
        CHECK(torch::equal(item.value().detach(), was.mul(1 - lr * weight_decay)));
      else
        CHECK(torch::equal(item.value().detach(), was));  // bit for bit
    }
  }
}

TEST_CASE("a CPU run's record says where it ran: fp32, no CUDA graphs, no GPU; train.cuda_graphs changes nothing",
          "[train]") {
  test::TempDir dir("where-it-ran");
  test::write_fashion_fixture(dir.path() / "data", 64, 16);
  test::write_text(dir.path() / "tiny.yaml", kTinySpec);
  Experiment experiment = load_experiment((dir.path() / "tiny.yaml").string());
  experiment.overrides.push_back(parse_override("train.epochs=1"));
  REQUIRE(run_experiment(experiment, test::runner_options(dir, "auto")) == 0);
  experiment.overrides.push_back(parse_override("train.cuda_graphs=off"));
  REQUIRE(run_experiment(experiment, test::runner_options(dir, "off")) == 0);
  const auto run_dir = [&](const std::string& out) { return dir.path() / out / "tiny/fashion_mnist/model/seed_3"; };
  const RunRecord record = read_run_record(run_dir("auto") / "summary.json");
  CHECK(record.device.precision == std::optional<std::string>("fp32"));
  CHECK(record.device.cuda_graphs == std::optional<bool>(false));
  CHECK_FALSE(record.device.gpu_name.has_value());
  CHECK_FALSE(record.device.driver_version.has_value());
  CHECK_FALSE(record.device.cuda_runtime.has_value());
  CHECK_FALSE(record.device.compute_capability.has_value());
  CHECK_THAT(read_file(run_dir("auto") / "spec.resolved.yaml"), Contains("cuda_graphs: auto"));
  CHECK_THAT(read_file(run_dir("off") / "spec.resolved.yaml"), Contains("cuda_graphs: off"));
  // The CPU never captures: both settings train the same numbers.
  CHECK(test::metrics_without_seconds(run_dir("auto") / "metrics.csv") ==
        test::metrics_without_seconds(run_dir("off") / "metrics.csv"));
}
