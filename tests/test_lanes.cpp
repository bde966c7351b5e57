// `repro run --lanes K` (issue 56): K runs of a plan trained at once in one process, one thread each, each run's
// records equal to those it has alone. The runs draw from their own generators (data/random.h), so dropout on the
// maps and after projections, label smoothing and augmentation are all in the spec; the comparisons are bit for
// bit (on one machine, one thread per run).
#include <fmt/format.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "catch.h"
#include "fixtures.h"
#include "run_repro.h"
#include "train/step.h"
#include "util/files.h"
#include "util/memory.h"
#include "util/strings.h"

using namespace repro;
using repro::test::Contains;

namespace {

// Three seeds of a one-block ViT with dropout everywhere it can be, label smoothing and crop + flip augmentation:
// 3 epochs of 6 steps on 350 training images, a steps.csv row every 2 steps. `rows` adds model configurations.
std::string write_lanes_spec(const test::TempDir& dir, const std::string& rows = "") {
  return test::fashion_spec(dir, "lanes.yaml",
                            "experiment: lanes\ndatasets: [fashion_mnist]\nseeds: [0, 1, 2]\n"
                            "model: {dim: 16, depth: 1, heads: 2, patch: 7, dropout: 0.1, attn_dropout: 0.1, "
                            "emb_dropout: 0.1, ffn: {ratio: 2}}\n"
                            "data: {val_fraction: 0.125, verify: off, augment: crop_flip}\n"
                            "train: {epochs: 3, batch_size: 64, eval_batch_size: 128, lr: 2e-3, warmup_steps: 4, "
                            "label_smoothing: 0.1, log_every: 2}\n" +
                                rows);
}

const char* const kSeeds[] = {"seed_0", "seed_1", "seed_2"};

// A run's numbers as its records hold them, times aside: metrics.csv, steps.csv's loss, lr and gradient norm, and
// summary.json's state, selection and selected metrics.
std::string numbers(const std::filesystem::path& run) {
  std::string out = test::metrics_without_seconds(run / "metrics.csv");
  for (const StepRow& row : test::parse_steps_csv(read_file(run / "steps.csv"), run / "steps.csv"))
    out += fmt::format("{} {} {:.17g} {:.17g} {:.17g}\n", row.step, row.epoch, row.loss, row.lr, row.grad_norm);
  const auto summary = nlohmann::json::parse(read_file(run / "summary.json"));
  return out + summary.at("status").dump() + summary.at("selection").dump() + summary.at("selected").dump();
}

int lanes_recorded(const std::filesystem::path& run) {
  return nlohmann::json::parse(read_file(run / "summary.json")).at("environment").at("lanes").get<int>();
}

// The three runs trained alone, each in its own process (--index), one thread each.
std::filesystem::path train_alone(const test::TempDir& dir, const std::string& spec) {
  const auto out = dir.path() / "alone";
  for (int index = 0; index < 3; ++index) {
    const test::Result one =
        test::run_repro("run " + spec + " --index " + std::to_string(index) + " --threads 1 --out " + out.string());
    INFO(one.output);
    REQUIRE(one.exit_code == 0);
  }
  return out / "lanes/fashion_mnist/model";
}

}  // namespace

TEST_CASE("--lanes 3 gives each run the records it has alone, dropout, label smoothing and augmentation included",
          "[cli]") {
  test::TempDir dir("lanes-records");
  const std::string spec = write_lanes_spec(dir);
  const auto alone = train_alone(dir, spec);
  const auto out = dir.path() / "lanes";
  const test::Result lanes = test::run_repro("run " + spec + " --lanes 3 --threads 1 --out " + out.string());
  INFO(lanes.output);
  REQUIRE(lanes.exit_code == 0);
  CHECK_THAT(lanes.output, Contains("3 lanes in this process, 1 LibTorch thread each") &&
                               Contains("[run 2] epoch 3/3") && Contains("| model |"));
  const auto trained = out / "lanes/fashion_mnist/model";
  for (const char* seed : kSeeds) {
    INFO(seed);
    CHECK(numbers(trained / seed) == numbers(alone / seed));
    CHECK(lanes_recorded(trained / seed) == 3);
    CHECK(lanes_recorded(alone / seed) == 1);
    // Each lane's lines in its own log.txt, without the console's label.
    const std::string log = read_file(trained / seed / "log.txt");
    CHECK(test::count_of(log, "] [info] run ") == 1);
    CHECK(test::count_of(log, "epoch 3/3:") == 1);
    CHECK_THAT(log, !Contains("[run "));
  }
  // The same three runs differ from one another: the comparison above could fail.
  CHECK(numbers(trained / "seed_0") != numbers(trained / "seed_1"));

  // --lanes 1 is the in-process executor as it ever was: the same records again.
  const auto one_lane = dir.path() / "one";
  const test::Result single = test::run_repro("run " + spec + " --lanes 1 --threads 1 --out " + one_lane.string());
  INFO(single.output);
  REQUIRE(single.exit_code == 0);
  CHECK_THAT(single.output, !Contains("lanes in this process") && !Contains("[run 1]"));
  for (const char* seed : kSeeds)
    CHECK(numbers(one_lane / "lanes/fashion_mnist/model" / seed) == numbers(alone / seed));
}

TEST_CASE("--lanes 3 on text: the texts tokenized once for every lane, each run's records as alone", "[cli]") {
  test::TempDir dir("lanes-text");
  std::string pos, neg;
  for (int i = 0; i < 80; ++i) {
    pos += "a fine film , truly great number " + std::to_string(i % 7) + " and more\n";
    neg += "a dull film , truly awful number " + std::to_string(i % 7) + " and less\n";
  }
  test::write_tar(dir.path() / "data/rotten_tomatoes/rt-polaritydata.tar.gz",
                  {{"rt-polaritydata/rt-polarity.pos", pos}, {"rt-polaritydata/rt-polarity.neg", neg}});
  const auto spec = dir.path() / "text.yaml";
  test::write_text(spec,
                   "experiment: text\ndatasets: [rotten_tomatoes]\nseeds: [0, 1, 2]\n"
                   "model: {dim: 16, depth: 1, heads: 2, dropout: 0.1, attn_dropout: 0.1, emb_dropout: 0.1, "
                   "ffn: {ratio: 2}, attention: {kind: dgsa}}\n"
                   "data: {verify: off}\ntext: {max_len: 16}\n"
                   "train: {epochs: 2, batch_size: 16, lr: 2e-3, label_smoothing: 0.1, log_every: 3}\n");
  const std::string common = "run " + spec.string() + " --data-root " + (dir.path() / "data").string() + " --threads 1";
  ::setenv("REPRO_CACHE", (dir.path() / "cache-lanes").c_str(), 1);  // nothing tokenized before
  const test::Result lanes = test::run_repro(common + " --lanes 3 --out " + (dir.path() / "lanes").string());
  ::setenv("REPRO_CACHE", (dir.path() / "cache-alone").c_str(), 1);
  for (int index = 0; index < 3; ++index)
    REQUIRE(test::run_repro(common + " --index " + std::to_string(index) + " --out " + (dir.path() / "alone").string())
                .exit_code == 0);
  ::unsetenv("REPRO_CACHE");
  INFO(lanes.output);
  REQUIRE(lanes.exit_code == 0);
  CHECK(test::count_of(lanes.output, "tokenizing rotten_tomatoes") == 1);
  for (const char* seed : kSeeds) {
    INFO(seed);
    const auto run = std::filesystem::path("text/rotten_tomatoes/model") / seed;
    CHECK(numbers(dir.path() / "lanes" / run) == numbers(dir.path() / "alone" / run));
  }
}

TEST_CASE("lanes killed mid-epoch resume to the numbers of runs alone; a signal checkpoints every lane", "[cli]") {
  test::TempDir dir("lanes-kill");
  const std::string spec = write_lanes_spec(dir);
  const auto alone = train_alone(dir, spec);

  // 6 steps an epoch: step 9 of the second run is in its second epoch; SIGKILL takes the whole process.
  const auto killed = dir.path() / "killed";
  const std::string lanes = " --lanes 3 --threads 1 --out ";
  const test::Result kill =
      test::run_repro_faults("run " + spec + lanes + killed.string() + " --kill-run 1 --kill-at-step 9");
  INFO(kill.output);
  CHECK(kill.exit_code == 128 + SIGKILL);
  const auto killed_run = killed / "lanes/fashion_mnist/model/seed_1";
  CHECK(std::filesystem::exists(killed_run / "checkpoint.pt"));
  CHECK_FALSE(std::filesystem::exists(killed_run / "summary.json"));
  const test::Result resumed = test::run_repro("run " + spec + lanes + killed.string());
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK_THAT(read_file(killed_run / "log.txt"), Contains("resuming"));
  for (const char* seed : kSeeds) {
    INFO(seed);
    CHECK(numbers(killed / "lanes/fashion_mnist/model" / seed) == numbers(alone / seed));
  }

  // The requeue signal (SIGUSR1, outside SLURM) at step 9 of whichever lane gets there first: every lane writes a
  // mid-epoch checkpoint and stops; the next command resumes all three to the same numbers.
  const auto signalled = dir.path() / "signalled";
  const test::Result stop =
      test::run_repro_faults("run " + spec + lanes + signalled.string() + " --interrupt-at-step 9");
  INFO(stop.output);
  CHECK(stop.exit_code == 128 + SIGUSR1);
  CHECK_THAT(stop.output, !Contains("| model |"));  // no table after a signal
  for (const char* seed : kSeeds) {
    INFO(seed);
    const auto run = signalled / "lanes/fashion_mnist/model" / seed;
    CHECK(std::filesystem::exists(run / "checkpoint.pt"));
    CHECK_FALSE(std::filesystem::exists(run / "summary.json"));
  }
  const test::Result finished = test::run_repro("run " + spec + lanes + signalled.string());
  INFO(finished.output);
  REQUIRE(finished.exit_code == 0);
  for (const char* seed : kSeeds) {
    INFO(seed);
    CHECK(numbers(signalled / "lanes/fashion_mnist/model" / seed) == numbers(alone / seed));
  }
}

TEST_CASE("a diverging lane leaves the other lanes' records untouched", "[cli]") {
  test::TempDir dir("lanes-diverge");
  // A second configuration whose first update is 0/0: every weight initialised to 0 (the head's gradient is exactly
  // 0) and AdamW without epsilon. Its loss is NaN from its second step on.
  const std::string spec = write_lanes_spec(dir,
                                            "models:\n  - name: model\n  - name: exploding\n"
                                            "    train: {eps: 0}\n    model: {init_std: 0}\n");
  const auto alone = train_alone(dir, spec);  // positions 0-2: the three seeds of "model"
  const auto out = dir.path() / "lanes";
  // Six lanes: the three diverging runs train beside the three others.
  const test::Result lanes = test::run_repro("run " + spec + " --lanes 6 --threads 1 --out " + out.string());
  INFO(lanes.output);
  CHECK(lanes.exit_code == 0);  // a diverged run is an outcome, not a failure
  int diverged = 0;
  for (const char* seed : kSeeds) {
    const auto summary =
        nlohmann::json::parse(read_file(out / "lanes/fashion_mnist/exploding" / seed / "summary.json"));
    diverged += summary.at("status") == "diverged";
  }
  CHECK(diverged == 3);
  for (const char* seed : kSeeds) {
    INFO(seed);
    CHECK(numbers(out / "lanes/fashion_mnist/model" / seed) == numbers(alone / seed));
  }
}

TEST_CASE("repro status shows every lane's run as running while --lanes trains them", "[cli]") {
  test::TempDir dir("lanes-status");
  const std::string spec = write_lanes_spec(dir);
  const auto out = dir.path() / "runs";
  // Slowed to 100 ms a step (about 2 s a run), so that status sees the three lanes at work.
  const std::string command = std::string(REPRO_FAULTS_BINARY) + " run " + spec +
                              " --lanes 3 --threads 1 --step-delay-ms 100 --out " + out.string() + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  bool three_running = false;
  for (int tries = 0; tries < 400 && !three_running; ++tries) {  // at most about 40 s
    const test::Result status = test::run_repro("status " + out.string());
    three_running = status.output.find("3 running") != std::string::npos;
    if (!three_running) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::string output;
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  INFO(output);
  CHECK(::pclose(pipe) == 0);
  CHECK(three_running);
}

namespace {

// One seed, one epoch of the lanes' ViT, and `rows`: the tests of where a run's numbers come from (issue 64).
std::string write_rows_spec(const test::TempDir& dir, const std::string& rows) {
  return test::fashion_spec(dir, "rows.yaml",
                            "experiment: rows\ndatasets: [fashion_mnist]\nseeds: [0, 1]\n"
                            "model: {dim: 16, depth: 1, heads: 2, patch: 7, dropout: 0.1, ffn: {ratio: 2}}\n"
                            "data: {val_fraction: 0.125, verify: off}\n"
                            "train: {epochs: 1, batch_size: 64, eval_batch_size: 128, lr: 2e-3, log_every: 2}\n" +
                                rows);
}

int64_t trained_on(const std::filesystem::path& run) {
  return nlohmann::json::parse(read_file(run / "summary.json")).at("data").at("train").get<int64_t>();
}

}  // namespace

TEST_CASE("two rows of the same settings in one plan give the same numbers seed for seed", "[cli]") {
  // A run's weights start from its seed alone, not from its place in the plan (src/run/train_run.cpp).
  test::TempDir dir("rows-twins");
  const std::string spec = write_rows_spec(dir, "models:\n  - name: first\n  - name: second\n");
  const auto out = dir.path() / "runs";
  const test::Result run = test::run_repro("run " + spec + " --threads 1 --out " + out.string());
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.output, Contains("resolve to the same settings"));
  const auto rows = out / "rows/fashion_mnist";
  for (const char* seed : {"seed_0", "seed_1"}) {
    INFO(seed);
    CHECK(numbers(rows / "first" / seed) == numbers(rows / "second" / seed));
  }
  CHECK(numbers(rows / "first/seed_0") != numbers(rows / "first/seed_1"));  // seeds differ: the check could fail
}

TEST_CASE("--lanes 2 on rows that differ in a data.* key: each run trains on its own row's data", "[cli]") {
  // The data a lanes process shares is keyed by the dataset and every data.* and text.* setting
  // (src/run/shared_data.cpp): a row with data.train_limit trained on the other row's examples before.
  test::TempDir dir("rows-data");
  const std::string spec =
      write_rows_spec(dir, "models:\n  - name: all\n  - name: limited\n    data: {train_limit: 128}\n");
  const auto lanes = dir.path() / "lanes";
  const test::Result run = test::run_repro("run " + spec + " --lanes 2 --threads 1 --out " + lanes.string());
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const auto alone = dir.path() / "alone";
  for (int index : {0, 2}) {  // seed 0 of each row, each in a process of its own
    const test::Result one =
        test::run_repro("run " + spec + " --index " + std::to_string(index) + " --threads 1 --out " + alone.string());
    INFO(one.output);
    REQUIRE(one.exit_code == 0);
  }
  const auto rows = std::filesystem::path("rows/fashion_mnist");
  CHECK(trained_on(lanes / rows / "all/seed_0") == 350);
  CHECK(trained_on(lanes / rows / "limited/seed_0") == 128);
  CHECK(trained_on(lanes / rows / "limited/seed_1") == 128);
  for (const char* row : {"all", "limited"}) {
    INFO(row);
    CHECK(numbers(lanes / rows / row / "seed_0") == numbers(alone / rows / row / "seed_0"));
  }
}

TEST_CASE("--lanes refuses what it cannot do, in one line naming the option", "[cli]") {
  test::TempDir dir("lanes-refusals");
  const std::string spec = write_lanes_spec(dir);
  const std::string out = " --out " + (dir.path() / "runs").string();
  const test::Result with_jobs = test::run_repro("run " + spec + " --lanes 2 --jobs 2" + out);
  CHECK(with_jobs.exit_code == 2);
  CHECK_THAT(with_jobs.output, Contains("--lanes 2 with --jobs 2: lanes train runs on threads of this process"));
  for (const char* value : {"0", "65", "two"}) {
    const test::Result bad = test::run_repro("run " + spec + " --lanes " + value + out);
    INFO(bad.output);
    CHECK(bad.exit_code != 0);
    CHECK_THAT(bad.output, Contains("--lanes"));
  }
  // --devices with lanes is checked as without: on a machine without CUDA both are refused alike (issue 64).
  if (!torch::cuda::is_available()) {
    const test::Result devices = test::run_repro("run " + spec + " --devices 0" + out);
    const test::Result with_lanes = test::run_repro("run " + spec + " --lanes 2 --devices 0" + out);
    INFO(devices.output << with_lanes.output);
    CHECK(devices.exit_code == 2);
    CHECK(with_lanes.exit_code == 2);
    for (const test::Result* refused : {&devices, &with_lanes})
      CHECK_THAT(refused->output, Contains("--devices 0: no CUDA device is available to this build"));
  }
  CHECK_FALSE(std::filesystem::exists(dir.path() / "runs"));  // nothing written on a refusal
}

TEST_CASE("the memory check counts the lanes that will train: --lanes K, or the runs left when fewer", "[cli]") {
  // One model whose training state takes about an eighth of this machine's memory: 64 of them would not fit.
  const uint64_t memory = physical_memory_bytes();
  const int64_t dim = 1024, per_block = 12 * dim * dim;  // attention 4 D^2, a feed-forward of ratio 4 8 D^2
  const int64_t depth = static_cast<int64_t>(memory / 128) / per_block;
  if (memory == 0 || depth < 1 || depth > 64) {
    WARN("SKIPPED: " << memory << " bytes of memory: no model size fits the check");
    return;
  }
  test::TempDir dir("lanes-memory");
  test::write_fashion_fixture(dir.path() / "data", 64, 16);
  const auto spec = dir.path() / "big.yaml";
  test::write_text(spec,
                   "experiment: big\ndatasets: [fashion_mnist]\nseeds: [0]\nmodel: {dim: 1024, heads: 8, "
                   "patch: 7, ffn: {ratio: 4}, depth: " +
                       std::to_string(depth) + "}\n");
  const std::string common = " --data-root " + (dir.path() / "data").string() + " --out " +
                             (dir.path() / "runs").string() + " --lanes 64 --dry-run";
  const test::Result one = test::run_repro("run " + spec.string() + common);
  INFO(one.output);
  CHECK(one.exit_code == 0);
  CHECK_THAT(one.output, Contains("1 runs in 1 model configuration") && !Contains("a real run would stop here"));
  const test::Result many = test::run_repro("sweep " + spec.string() + " --seeds 0-63" + common);
  INFO(many.output);
  CHECK_THAT(many.output, Contains("a real run would stop here") && Contains("64 at once (--lanes)"));
}
