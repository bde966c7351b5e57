// --time-limit: no run starts that is expected to outlast the time left (the longest complete run
// of the same configuration, else dataset, scaled by the epochs still to train), and at the limit
// the runs still training checkpoint and stop (exit 142), in one process and under --jobs.
#include <csignal>

#include "catch.h"
#include "fixtures.h"
#include "record/run_record.h"
#include "run/time_limit.h"
#include "run_repro.h"
#include "util/files.h"

using namespace repro;
using repro::test::Contains;
namespace fs = std::filesystem;

namespace {

RunRecord finished(const std::string& model_config, const std::string& dataset, double seconds,
                   RunState status = RunState::Complete, int64_t resumed_from_epoch = 0) {
  RunRecord record;
  record.model_config = model_config;
  record.dataset = dataset;
  record.wall_seconds = seconds;
  record.status = status;
  record.resumed_from_epoch = resumed_from_epoch;
  return record;
}

PlannedRun planned(const std::string& model_config, const std::string& dataset, int64_t epochs) {
  PlannedRun run;
  run.model_config = model_config;
  run.dataset = dataset;
  run.options.train.epochs = epochs;
  return run;
}

// Two seeds; 72 training images at batch 16: 5 steps an epoch, 15 a run.
const char* kTwoSeeds = R"(experiment: limit
datasets: [fashion_mnist]
seeds: [3, 4]
model: {dim: 16, depth: 1, heads: 2, patch: 7, dropout: 0.1, ffn: {ratio: 2}}
data: {val_fraction: 0.25, verify: off, augment: crop_flip}
train: {epochs: 3, batch_size: 16, lr: 3e-3, warmup_steps: 2}
)";

fs::path seed_folder(const test::TempDir& dir, const std::string& out, int seed) {
  return dir.path() / out / ("limit/fashion_mnist/model/seed_" + std::to_string(seed));
}

}  // namespace

TEST_CASE("run durations: the longest complete run of the configuration, else the dataset, scaled by epochs left",
          "[spec]") {
  RunDurations durations;
  durations.add(finished("A", "x", 100));
  durations.add(finished("A", "x", 80));
  durations.add(finished("B", "x", 300));
  durations.add(finished("A", "x", 900, RunState::Complete, /*resumed_from_epoch=*/4));  // its last start only
  durations.add(finished("A", "x", 5000, RunState::Diverged));                           // stopped early
  durations.add(finished("A", "x", 7000, RunState::Failed));
  CHECK(durations.expected_seconds(planned("A", "x", 10), 0) == Approx(100));
  CHECK(durations.expected_seconds(planned("A", "x", 10), 4) == Approx(60));  // 6 of 10 epochs left
  CHECK(durations.expected_seconds(planned("A", "x", 10), 10) == Approx(0));
  CHECK(durations.expected_seconds(planned("C", "x", 10), 0) == Approx(300));  // any configuration on x
  CHECK_FALSE(durations.expected_seconds(planned("A", "y", 10), 0).has_value());
}

TEST_CASE("a time limit allows a run whose expected time fits, or is unknown, until it has passed", "[spec]") {
  const TimeLimit none;
  CHECK_FALSE(none.active());
  CHECK(none.allows(1e12));
  const TimeLimit hour(3600);
  CHECK(hour.active());
  CHECK(hour.seconds_left() > 3500);
  CHECK(hour.allows(std::nullopt));
  CHECK(hour.allows(3000));
  CHECK_FALSE(hour.allows(4000));
  const TimeLimit forever(6e301);  // --time-limit 1e300: clamped, not overflowed
  CHECK(forever.seconds_left() > 1e9);
  CHECK(forever.allows(1e9));
  const TimeLimit passed(1, TimeLimit::Clock::now() - std::chrono::seconds(5));
  CHECK(passed.seconds_left() < 0);
  CHECK_FALSE(passed.allows(std::nullopt));
  CHECK_FALSE(passed.allows(0));
  CHECK_THAT(not_started_reason(270, 100), Contains("4m30s expected") && Contains("1m40s left (--time-limit)"));
  CHECK_THAT(not_started_reason(std::nullopt, -1), Contains("the time limit has passed"));
}

TEST_CASE("--time-limit: a run expected to outlast it is not started (exit 3), in one process and with --jobs",
          "[cli]") {
  test::TempDir dir("time-limit-start");
  const std::string common = test::fashion_cli(dir, "limit.yaml", kTwoSeeds);
  for (const std::string jobs : {"", " --jobs 2"}) {
    const std::string name = jobs.empty() ? "serial" : "jobs";
    const std::string out = (dir.path() / name).string();
    INFO(name);
    // Seed 3 alone (plan position 0), then its record says it took a day: seed 4 (same configuration) would not
    // fit in an hour.
    REQUIRE(test::run_repro("run " + common + out + " --index 0").exit_code == 0);
    const fs::path summary = seed_folder(dir, name, 3) / "summary.json";
    RunRecord record = read_run_record(summary);
    record.wall_seconds = 86400;
    write_run_record(summary, record);

    const auto limited = test::run_repro("run " + common + out + " --time-limit 60" + jobs);
    INFO(limited.output);
    CHECK(limited.exit_code == 3);
    CHECK_THAT(limited.output, Contains("seed 4") || Contains("run 2"));
    CHECK_THAT(limited.output, Contains("not started: about 24h00m expected"));
    CHECK_THAT(limited.output, Contains("1 of 2 runs were not started"));
    CHECK_FALSE(fs::exists(seed_folder(dir, name, 4) / "summary.json"));
    CHECK_THAT(limited.output, !Contains("| model |"));  // no table while runs are left

    // Without the limit (or with a day and more) it trains.
    const auto whole = test::run_repro("run " + common + out + " --time-limit 1500" + jobs);
    INFO(whole.output);
    CHECK(whole.exit_code == 0);
    CHECK(read_run_record(seed_folder(dir, name, 4) / "summary.json").status == RunState::Complete);
  }
  for (const char* bad : {"0", "-1", "nan", "soon"}) {
    const auto refused = test::run_repro("run " + common + (dir.path() / "bad").string() + " --time-limit " + bad);
    INFO(bad);
    CHECK(refused.exit_code != 0);
    CHECK_THAT(refused.output, Contains("--time-limit"));
  }
  CHECK_FALSE(fs::exists(dir.path() / "bad"));
}

TEST_CASE(
    "--time-limit: at the limit the runs checkpoint and stop (exit 142); the same command resumes them to the "
    "undisturbed numbers",
    "[cli]") {
  ::unsetenv("SLURM_JOB_ID");
  test::TempDir dir("time-limit-stop");
  const std::string common = test::fashion_cli(dir, "limit.yaml", kTwoSeeds, " --threads 1");
  REQUIRE(test::run_repro("run " + common + (dir.path() / "calm").string()).exit_code == 0);
  for (const std::string jobs : {"", " --jobs 2"}) {
    const std::string name = jobs.empty() ? "serial" : "jobs";
    const std::string out = (dir.path() / name).string();
    INFO(name);
    // 1 s after each of a run's 15 steps: 15 s a run, stopped by a limit of 6 s. The runs must be training by then:
    // a child still loading LibTorch has no handler yet and dies without a checkpoint. A 2 s limit was too short
    // for that on a loaded 2-core machine (the Debian 13 lane's LibTorch 2.6, CI beside two trainings).
    const auto stopped =
        test::run_repro_faults("run " + common + out + " --time-limit 0.1 --step-delay-ms 1000" + jobs);
    INFO(stopped.output);
    CHECK(stopped.exit_code == 128 + SIGALRM);
    CHECK_THAT(stopped.output, Contains("the time limit (--time-limit)") && Contains("stopped with a checkpoint"));
    CHECK(fs::exists(seed_folder(dir, name, 3) / "checkpoint.pt"));
    CHECK_FALSE(fs::exists(seed_folder(dir, name, 3) / "summary.json"));
    if (!jobs.empty()) CHECK(fs::exists(seed_folder(dir, name, 4) / "checkpoint.pt"));  // both were training

    const auto resumed = test::run_repro("run " + common + out + jobs);
    INFO(resumed.output);
    REQUIRE(resumed.exit_code == 0);
    for (const int seed : {3, 4})
      test::check_resumed_records(seed_folder(dir, name, seed), seed_folder(dir, "calm", seed));
  }
}
