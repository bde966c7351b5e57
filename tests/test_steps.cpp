// steps.csv (train.log_every): its rows, what they hold, and that a kill leaves no
// duplicated or missing step: the next run rewrites the file from the checkpoint's rows,
// and the losses of a resumed run's rows equal an undisturbed run's (the checkpoint keeps
// the partial window).
#include <signal.h>

#include "catch.h"
#include <cmath>
#include <filesystem>

#include "fixtures.h"
#include "run_repro.h"
#include "train/history.h"
#include "train/step_log.h"
#include "util/error.h"
#include "util/files.h"

using namespace repro;
using repro::test::Contains;
namespace fs = std::filesystem;

namespace {

// 96 training images, a quarter for validation: 72 at batch 16 = 5 steps an epoch (16, 16, 16, 16, 8).
const char* kSpec = R"(experiment: steps
datasets: [fashion_mnist]
seeds: [2]
model: {dim: 16, depth: 1, heads: 2, patch: 7, dropout: 0.1, ffn: {ratio: 2}}
data: {val_fraction: 0.25, verify: off}
train: {epochs: 3, batch_size: 16, lr: 3e-3, warmup_steps: 2, clip_norm: 0.5}
)";

struct Setup {
  test::TempDir dir;
  explicit Setup(const std::string& name) : dir(name) {
    test::write_fashion_fixture(dir.path() / "data", 96, 32);
    test::write_text(dir.path() / "steps.yaml", kSpec);
  }
  // `repro run` of the spec into OUT with extra arguments.
  test::Result run(const std::string& out, const std::string& extra = "") const {
    return test::run_repro("run " + (dir.path() / "steps.yaml").string() + " --data-root " +
                           (dir.path() / "data").string() + " --out " + (dir.path() / out).string() +
                           " --threads 1 " + extra);
  }
  fs::path run_dir(const std::string& out) const { return dir.path() / out / "steps/fashion_mnist/model/seed_2"; }
  std::vector<StepRow> steps(const std::string& out) const {
    const fs::path path = run_dir(out) / "steps.csv";
    return parse_steps_csv(read_file(path), path);
  }
};

// The columns that do not depend on time: step, epoch, loss, lr, grad_norm.
std::vector<std::vector<double>> timeless(const std::vector<StepRow>& rows) {
  std::vector<std::vector<double>> out;
  for (const auto& r : rows)
    out.push_back({static_cast<double>(r.step), static_cast<double>(r.epoch), r.loss, r.lr, r.grad_norm});
  return out;
}

}  // namespace

TEST_CASE("steps.csv: a row every train.log_every steps; a window of one epoch is the epoch's training loss",
          "[train]") {
  Setup s("steps-rows");
  // log_every = the steps of an epoch: each row's window is one epoch.
  const auto result = s.run("runs", "train.log_every=5");
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  const auto rows = s.steps("runs");
  const fs::path metrics_path = s.run_dir("runs") / "metrics.csv";
  const auto epochs = parse_metrics_csv(read_file(metrics_path), metrics_path);
  REQUIRE(rows.size() == 3);
  REQUIRE(epochs.size() == 3);
  for (size_t i = 0; i < rows.size(); ++i) {
    INFO("row " << i);
    CHECK(rows[i].step == 5 * static_cast<int64_t>(i + 1));
    CHECK(rows[i].epoch == static_cast<int64_t>(i + 1));
    CHECK(rows[i].step == epochs[i].step);
    CHECK(rows[i].loss == Approx(epochs[i].train_loss).epsilon(1e-6));
    CHECK(rows[i].lr == Approx(epochs[i].lr).epsilon(1e-7));
    CHECK(rows[i].grad_norm > 0);  // measured before clipping (clip_norm 0.5)
    CHECK(std::isfinite(rows[i].grad_norm));
    CHECK(rows[i].examples_per_s > 0);
    CHECK(std::isnan(rows[i].cuda_memory_mb));  // the CPU
    CHECK(rows[i].wall_time > 1.7e9);           // Unix seconds
  }
  CHECK(rows[0].wall_time <= rows[2].wall_time);

  // Every 2 steps, without clipping: rows at 2, 4, ..., 14, the gradient norm measured anyway.
  REQUIRE(s.run("every2", "train.log_every=2 train.clip_norm=0").exit_code == 0);
  const auto every2 = s.steps("every2");
  REQUIRE(every2.size() == 7);
  CHECK(every2.front().step == 2);
  CHECK(every2.back().step == 14);
  CHECK(every2[2].epoch == 2);  // step 6 is the first of epoch 2
  for (const auto& row : every2) CHECK(row.grad_norm > 0);

  // 0: no steps.csv.
  REQUIRE(s.run("none", "train.log_every=0").exit_code == 0);
  CHECK_FALSE(fs::exists(s.run_dir("none") / "steps.csv"));
  CHECK(fs::exists(s.run_dir("none") / "metrics.csv"));
}

TEST_CASE("steps.csv after a SIGKILL mid-epoch and a resume: no step duplicated or missing, the same losses",
          "[train]") {
  Setup s("steps-kill");
  REQUIRE(s.run("calm", "train.log_every=2").exit_code == 0);
  const auto calm = s.steps("calm");
  REQUIRE(calm.size() == 7);

  // Killed at step 9 (mid-epoch 2): the checkpoint is epoch 1's (step 5, rows 2 and 4, step 5 in the window).
  const auto killed = s.run("killed", "train.log_every=2 --kill-at-step 9");
  INFO(killed.output);
  REQUIRE(killed.exit_code == 128 + SIGKILL);
  CHECK(s.steps("killed").size() == 2);
  // A row past the checkpoint, as a writer that outran it would leave: the resume drops it.
  append_file(s.run_dir("killed") / "steps.csv", "8,2,9,9,9,9,,1800000000\n");
  const auto resumed = s.run("killed", "train.log_every=2");
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK(timeless(s.steps("killed")) == timeless(calm));

  // Interrupted mid-epoch (SIGUSR1, a mid-epoch checkpoint) and resumed: the same rows again.
  const auto interrupted = s.run("interrupted", "train.log_every=2 --interrupt-at-step 7");
  INFO(interrupted.output);
  REQUIRE(interrupted.exit_code != 0);
  CHECK(s.steps("interrupted").size() == 3);  // rows 2, 4, 6 written with the mid-epoch checkpoint
  REQUIRE(s.run("interrupted", "train.log_every=2").exit_code == 0);
  CHECK(timeless(s.steps("interrupted")) == timeless(calm));
}

TEST_CASE("steps.csv that repro cannot read back names the file and the line", "[train]") {
  const fs::path path = "runs/x/steps.csv";
  CHECK_THROWS_WITH(parse_steps_csv("step,epoch\n", path), Contains("steps.csv:1: header 'step,epoch'"));
  const std::string header = "step,epoch,loss,lr,grad_norm,examples_per_s,cuda_memory_mb,wall_time\n";
  CHECK_THROWS_WITH(parse_steps_csv(header + "2,1,0.5,0.001,1,100,,1\n2,1,0.5,0.001,1,100,,1\n", path),
                    Contains("steps.csv:3: step 2 after step 2"));
  CHECK_THROWS_WITH(parse_steps_csv(header + "2,1,abc,0.001,1,100,,1\n", path),
                    Contains("steps.csv:2: column 'loss' holds 'abc', not a number"));
  CHECK_THROWS_WITH(parse_steps_csv(header + "2,1,0.5\n", path), Contains("steps.csv:2: 3 fields, expected 8"));
  CHECK_THROWS_WITH(parse_steps_csv(header + "2,1,0.5,0.001,1,100,,1", path), Contains("truncated line"));
  const auto rows = parse_steps_csv(header + "2,1,0.5,0.001,1,100,,1\n", path);
  REQUIRE(rows.size() == 1);
  CHECK(std::isnan(rows[0].cuda_memory_mb));
  CHECK(steps_csv(rows) == header + "2,1,0.5,0.001,1,100,,1\n");
  CHECK(steps_from_json(steps_to_json(rows))[0].step == 2);
}
