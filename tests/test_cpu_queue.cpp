// scripts/cpu-queue (issue 66), what can be tested without the paper's training: the dry run, a queue that extends a
// committed run (copied, not retrained), resumes where it stopped, goes on past a failing item, and collects its
// finished runs only, with a tiny spec on the generated Fashion-MNIST fixture in place of experiments/table2.yaml.
#include <filesystem>
#include <string>

#include "catch.h"
#include "fixtures.h"
#include "run_repro.h"
#include "util/files.h"

using repro::test::Contains;
namespace fs = std::filesystem;

namespace {

const char* kQueueSpec = R"(experiment: queued
datasets: [fashion_mnist]
seeds: [0]
model: {dim: 16, depth: 1, heads: 2, patch: 7, dropout: 0.0, ffn: {ratio: 2}}
data: {verify: off}
train: {epochs: 1, batch_size: 16, lr: 2e-3, warmup_steps: 2}
models:
  - name: tiny
)";

fs::path script_source(const std::string& relative) { return fs::path(REPRO_SOURCE_DIR) / relative; }

// scripts/cpu-queue with the test's items, binary, data and out folder, then `arguments`; `wrapper` runs it (e.g. flock).
repro::test::Result queue(const repro::test::TempDir& dir, const std::string& arguments, const std::string& wrapper = "") {
  return repro::test::run_command(wrapper + script_source("scripts/cpu-queue").string() + " --items " +
                                  (dir.path() / "queue.items").string() + " --binary " + REPRO_BINARY +
                                  " --data-root " + (dir.path() / "data").string() + " --out " +
                                  (dir.path() / "queue").string() + " " + arguments);
}

void write_items(const repro::test::TempDir& dir, const std::string& seeds, const std::string& second_item) {
  repro::test::write_text(dir.path() / "queue.items",
                          "# a comment, then an item extending seed 0 of the committed results\n"
                          "first | " + (dir.path() / "queued.yaml").string() + " | queued | " +
                              (dir.path() / "results").string() + " | fashion_mnist/tiny/seed_0 | --seeds " + seeds +
                              "\n" + second_item);
}

}  // namespace

TEST_CASE("cpu-queue: dry run, extend a committed run, resume, go on past a failing item, collect finished runs",
          "[cli]") {
  repro::test::TempDir dir("cpu-queue");
  const std::string spec_args = repro::test::fashion_cli(dir, "queued.yaml", kQueueSpec, "");
  (void)spec_args;  // the fixture's data and spec; the queue passes its own options
  // The committed results the queue extends: seed 0, trained and collected as a session would.
  const auto committed = repro::test::run_repro("run " + (dir.path() / "queued.yaml").string() + " --data-root " +
                                                (dir.path() / "data").string() + " --out " +
                                                (dir.path() / "first_out").string());
  REQUIRE(committed.exit_code == 0);
  REQUIRE(repro::test::run_repro("collect " + (dir.path() / "first_out/queued").string() + " " +
                                 (dir.path() / "results").string())
              .exit_code == 0);
  const fs::path seed0 = dir.path() / "results/fashion_mnist/tiny/seed_0/summary.json";
  const std::string seed0_record = repro::read_file(seed0);

  // A second item whose spec does not exist: named in one line, and the queue goes on (exit 1 at the end).
  write_items(dir, "0-1", "broken | " + (dir.path() / "missing.yaml").string() + " | queued | " +
                              (dir.path() / "results").string() + " |  | --seeds 0\n");
  const auto dry = queue(dir, "--dry-run");
  INFO(dry.output);
  CHECK(dry.exit_code == 0);
  CHECK_THAT(dry.output, Contains("first: repro sweep "));
  CHECK_THAT(dry.output, Contains("--seeds 0-1 --lanes 2 --threads 1 --out " + (dir.path() / "queue/first").string()));
  CHECK_THAT(dry.output, Contains("(extends " + (dir.path() / "results").string() + ": fashion_mnist/tiny/seed_0)"));
  CHECK_THAT(dry.output, Contains("first: not started"));
  CHECK(!fs::exists(dir.path() / "queue/first"));  // a dry run trains and copies nothing

  const auto trained = queue(dir, "");
  INFO(trained.output);
  CHECK(trained.exit_code == 1);  // the broken item
  CHECK_THAT(trained.output, Contains("first: every run finished"));
  CHECK_THAT(trained.output, Contains("broken: repro sweep exited 2: "));
  CHECK_THAT(trained.output, Contains("missing.yaml"));
  const fs::path runs = dir.path() / "queue/first/queued";
  // Seed 0 was copied from the results, not retrained; seed 1 was trained beside it.
  CHECK(repro::read_file(runs / "fashion_mnist/tiny/seed_0/summary.json") == seed0_record);
  CHECK(fs::exists(runs / "fashion_mnist/tiny/seed_1/summary.json"));
  CHECK_THAT(repro::read_file(dir.path() / "queue/first.log"), Contains("1 of 2 runs were already finished"));
  CHECK(fs::exists(dir.path() / "queue/bin/repro"));  // the binary it trains with, copied

  // Started again with one more seed: what is finished stays, only seed 2 trains.
  write_items(dir, "0-2", "");
  const std::string seed1_record = repro::read_file(runs / "fashion_mnist/tiny/seed_1/summary.json");
  const auto resumed = queue(dir, "");
  INFO(resumed.output);
  CHECK(resumed.exit_code == 0);
  CHECK_THAT(repro::read_file(dir.path() / "queue/first.log"), Contains("2 of 3 runs were already finished"));
  CHECK(repro::read_file(runs / "fashion_mnist/tiny/seed_1/summary.json") == seed1_record);
  const auto status = queue(dir, "--status");
  CHECK_THAT(status.output, Contains("3 runs: 3 complete"));
  // While a queue trains a later item (its lock held), a finished item shows no lane's progress: its log's last
  // progress lines are stale (they said "ETA run 8m32s" after the run had finished).
  const fs::path first_log = dir.path() / "queue/first.log";
  repro::test::write_text(first_log, repro::read_file(first_log) +
                                         "[20:42:37] [info] [run 2] run 2/3 tiny fashion_mnist seed 1 | epoch 1/1 step 3/4 | "
                                         "loss 2.3 | 8 ex/s | ETA run 4m26s, all 4m26s\n");
  const auto held = queue(dir, "--status", "flock " + (dir.path() / "queue/queue.lock").string() + " ");
  INFO(held.output);
  CHECK_THAT(held.output, Contains("3 runs: 3 complete, 0 running"));
  CHECK(held.output.find("ETA") == std::string::npos);

  // Collect: the finished runs into the results folder, records only; seed 0 there unchanged.
  const auto collected = queue(dir, "--collect");
  INFO(collected.output);
  CHECK(collected.exit_code == 0);
  CHECK_THAT(collected.output, Contains("2 finished run(s) copied, 1 already there"));
  CHECK(repro::read_file(seed0) == seed0_record);
  for (const char* seed : {"seed_1", "seed_2"}) {
    const fs::path folder = dir.path() / "results/fashion_mnist/tiny" / seed;
    CHECK(fs::exists(folder / "summary.json"));
    CHECK(!fs::exists(folder / "model.pt"));
    CHECK(!fs::exists(folder / "checkpoint.pt"));
  }
}

TEST_CASE("cpu-queue refuses an out folder inside the work tree, a bad option and a bad items line", "[cli]") {
  repro::test::TempDir dir("cpu-queue-refusals");
  repro::test::fashion_cli(dir, "queued.yaml", kQueueSpec, "");
  write_items(dir, "0", "");
  const auto inside = repro::test::run_command(script_source("scripts/cpu-queue").string() + " --dry-run --out " +
                                               script_source("build/queue-here").string());
  CHECK(inside.exit_code == 2);
  CHECK_THAT(inside.output, Contains("is inside the work tree"));
  CHECK(queue(dir, "--lanes 0").exit_code == 2);
  CHECK_THAT(queue(dir, "--lanes 0").output, Contains("--lanes '0': expected an integer ≥ 1"));
  CHECK_THAT(queue(dir, "--fast").output, Contains("unknown option '--fast'"));
  repro::test::write_text(dir.path() / "queue.items", "only a name\n");
  const auto bad = queue(dir, "--dry-run");
  CHECK(bad.exit_code == 2);  // a line that is not an item, and then no item at all
  CHECK_THAT(bad.output, Contains("line 'only a name': expected name | spec | experiment/profile"));
  CHECK_THAT(bad.output, Contains("holds no item"));
}
