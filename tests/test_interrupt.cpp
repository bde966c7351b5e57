// Interruption: a signal after any optimizer step writes a mid-epoch checkpoint
// (position, partial totals, generator states), and the resumed run ends with
// exactly the records of an undisturbed one on the CPU; the requeue decision's
// guards; old end-of-epoch checkpoints still load.
#include <unistd.h>

#include "catch.h"
#include <csignal>
#include <nlohmann/json.hpp>

#include "fault_injector.h"
#include "fixtures.h"
#include "run/interrupt.h"
#include "run/runner.h"
#include "run_repro.h"
#include "spec/experiment.h"
#include "train/checkpoint.h"
#include "train/history.h"
#include "util/files.h"
#include "util/strings.h"

using namespace repro;
using repro::test::Contains;
namespace fs = std::filesystem;

namespace {

// Dropout and crop+flip augmentation draw from the generator every step; 72 training
// images at batch 16 are 5 steps an epoch (the last one short).
const char* kInterruptSpec = R"(experiment: interrupt
datasets: [fashion_mnist]
seeds: [3]
model: {dim: 16, depth: 1, heads: 2, patch: 7, dropout: 0.1, ffn: {ratio: 2}}
data: {val_fraction: 0.25, verify: off, augment: crop_flip}
train: {epochs: 3, batch_size: 16, lr: 3e-3, warmup_steps: 2}
)";

fs::path interrupt_run(const test::TempDir& dir, const std::string& out) {
  return dir.path() / out / "interrupt/fashion_mnist/model/seed_3";
}

// The checkpoint's mid-epoch position (0: an end-of-epoch checkpoint).
int64_t mid_epoch_batches(const fs::path& checkpoint) {
  torch::nn::Linear unused(1, 1);
  torch::serialize::InputArchive archive;
  archive.load_from(checkpoint.string());
  torch::Tensor batches;
  return archive.try_read("mid_batches", batches) ? batches.item<int64_t>() : 0;
}

}  // namespace

TEST_CASE("a run interrupted mid-epoch resumes from its checkpoint to the undisturbed numbers", "[train]") {
  ::unsetenv("SLURM_JOB_ID");  // no requeue from inside a test
  test::TempDir dir("interrupt-resume");
  test::write_fashion_fixture(dir.path() / "data", 96, 32);
  test::write_text(dir.path() / "interrupt.yaml", kInterruptSpec);
  const Experiment experiment = load_experiment((dir.path() / "interrupt.yaml").string());
  REQUIRE(run_experiment(experiment, test::runner_options(dir, "calm")) == 0);

  // Step 7 is batch 2 of epoch 2; the resumed start is interrupted again at step 13 (batch 3 of epoch 3).
  const fs::path twice = interrupt_run(dir, "twice");
  const test::FaultInjector at_7 = test::interrupt_at(7), at_13 = test::interrupt_at(13), at_5 = test::interrupt_at(5);
  REQUIRE(run_experiment(experiment, test::runner_options(dir, "twice", &at_7)) == 128 + SIGUSR1);
  CHECK(mid_epoch_batches(twice / "checkpoint.pt") == 2);
  CHECK_FALSE(fs::exists(twice / "summary.json"));
  CHECK(parse_metrics_csv(read_file(twice / "metrics.csv"), twice / "metrics.csv").size() == 1);
  REQUIRE(run_experiment(experiment, test::runner_options(dir, "twice", &at_13)) == 128 + SIGUSR1);
  CHECK(mid_epoch_batches(twice / "checkpoint.pt") == 3);
  REQUIRE(run_experiment(experiment, test::runner_options(dir, "twice")) == 0);
  test::check_resumed_records(twice, interrupt_run(dir, "calm"));
  CHECK_THAT(read_file(twice / "log.txt"), Contains("resuming epoch 3 after batch 3"));

  // The last step of an epoch: the resumed start trains no batch of it, only evaluates.
  const fs::path at_end = interrupt_run(dir, "at_end");
  REQUIRE(run_experiment(experiment, test::runner_options(dir, "at_end", &at_5)) == 128 + SIGUSR1);
  CHECK(mid_epoch_batches(at_end / "checkpoint.pt") == 5);
  REQUIRE(run_experiment(experiment, test::runner_options(dir, "at_end")) == 0);
  test::check_resumed_records(at_end, interrupt_run(dir, "calm"));
}

TEST_CASE("repro run on the requeue signal outside SLURM: checkpoint, exit 128 + signal saying so, then resume",
          "[cli]") {
  ::unsetenv("SLURM_JOB_ID");  // the child inherits it: no requeue from inside a test
  test::TempDir dir("interrupt-cli");
  const std::string common = test::fashion_cli(dir, "interrupt.yaml", kInterruptSpec);
  const std::string calm = (dir.path() / "calm").string(), broken = (dir.path() / "broken").string();
  REQUIRE(test::run_repro("run " + common + calm).exit_code == 0);
  const auto stopped =
      test::run_repro_faults("run " + common + broken + " --interrupt-at-step 8 --requeue-signal USR2");
  INFO(stopped.output);
  CHECK(stopped.exit_code == 128 + SIGUSR2);
  CHECK_THAT(stopped.output, Contains("outside SLURM") && Contains("checkpoint written"));
  CHECK_THAT(stopped.output, !Contains("| model |"));  // no table after an interruption
  const auto resumed = test::run_repro("run " + common + broken);
  INFO(resumed.output);
  CHECK(resumed.exit_code == 0);
  test::check_resumed_records(interrupt_run(dir, "broken"), interrupt_run(dir, "calm"));
  CHECK(test::run_repro("run " + common + broken + " --requeue-signal HUP").exit_code == 2);
}

TEST_CASE("--checkpoint-minutes: a mid-epoch checkpoint on a timer; a SIGKILL after it resumes to the same numbers",
          "[cli]") {
  test::TempDir dir("checkpoint-timer");
  const std::string common = test::fashion_cli(dir, "interrupt.yaml", kInterruptSpec);
  const auto out = [&](const char* name) { return (dir.path() / name).string(); };
  REQUIRE(test::run_repro("run " + common + out("calm")).exit_code == 0);

  // Due after every step (a billionth of a minute): the SIGKILL at step 8 (batch 3 of epoch 2) comes before that
  // step's checkpoint, so the disk holds step 7's, batch 2 of epoch 2; the next start resumes from it.
  const auto killed = test::run_repro_faults("run " + common + out("timer") + " --checkpoint-minutes 1e-9 --kill-at-step 8");
  CHECK(killed.exit_code != 0);
  CHECK_THAT(killed.output, Contains("checkpoint written in epoch 2 after batch 2 of 5 (step 7; --checkpoint-minutes)"));
  CHECK(mid_epoch_batches(interrupt_run(dir, "timer") / "checkpoint.pt") == 2);
  const auto resumed = test::run_repro("run " + common + out("timer"));
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK_THAT(read_file(interrupt_run(dir, "timer") / "log.txt"), Contains("resuming epoch 2 after batch 2"));
  test::check_resumed_records(interrupt_run(dir, "timer"), interrupt_run(dir, "calm"));

  // Checkpoints after every step and no kill: the same numbers as the calm run (saving draws nothing).
  REQUIRE(test::run_repro("run " + common + out("often") + " --checkpoint-minutes 1e-9").exit_code == 0);
  test::check_resumed_records(interrupt_run(dir, "often"), interrupt_run(dir, "calm"));

  // The default (30 minutes) and 0: the same kill leaves epoch 1's end-of-epoch checkpoint.
  for (const char* minutes : {"", " --checkpoint-minutes 0"}) {
    const std::string name = *minutes ? "off" : "default";
    CHECK(test::run_repro_faults("run " + common + out(name.c_str()) + minutes + " --kill-at-step 8").exit_code != 0);
    CHECK(mid_epoch_batches(interrupt_run(dir, name) / "checkpoint.pt") == 0);
  }
  for (const char* bad : {"-1", "nan", "inf", "soon", "''"}) {
    const auto refused = test::run_repro("run " + common + out("bad") + " --checkpoint-minutes " + bad);
    INFO(bad);
    CHECK(refused.exit_code != 0);
    CHECK_THAT(refused.output, Contains("--checkpoint-minutes"));
  }
  CHECK_FALSE(fs::exists(dir.path() / "bad"));
}

TEST_CASE("the requeue decision: only the requeue signal, under SLURM, below --max-restarts, after progress",
          "[train]") {
  InterruptPolicy policy;  // USR1, 3 restarts
  const std::map<std::string, std::string> array_task = {
      {"SLURM_JOB_ID", "42"}, {"SLURM_ARRAY_JOB_ID", "40"}, {"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_RESTART_COUNT", "1"}};
  auto decision = decide_requeue(SIGUSR1, 10, policy, array_task);
  CHECK(decision.requeue);
  CHECK(decision.target == "40_2");
  CHECK_THAT(decision.reason, Contains("restart 2 of at most 3"));
  CHECK(decide_requeue(SIGUSR1, 10, policy, {{"SLURM_JOB_ID", "42"}}).target == "42");
  CHECK_FALSE(decide_requeue(SIGTERM, 10, policy, array_task).requeue);
  CHECK_FALSE(decide_requeue(SIGUSR2, 10, policy, array_task).requeue);
  CHECK_THAT(decide_requeue(SIGUSR1, 0, policy, array_task).reason, Contains("no optimizer step"));
  const auto after_crash = decide_requeue(SIGUSR1, 10, policy, array_task, /*failed_runs_this_start=*/1);
  CHECK_FALSE(after_crash.requeue);
  CHECK_THAT(after_crash.reason, Contains("1 run(s) failed") && Contains("not requeued"));
  CHECK_THAT(decide_requeue(SIGUSR1, 10, policy, {}).reason, Contains("outside SLURM"));
  // Ctrl-C outside SLURM: how to go on, without requeue talk; under SLURM the requeue rule is named.
  const std::string ctrl_c = decide_requeue(SIGINT, 10, policy, {}).reason;
  CHECK(ctrl_c == "SIGINT: stopped with a checkpoint; the same command resumes where it stopped");
  CHECK_THAT(decide_requeue(SIGINT, 10, policy, array_task).reason, Contains("not requeued (only SIGUSR1 requeues)"));
  auto restarted = array_task;
  restarted["SLURM_RESTART_COUNT"] = "3";
  CHECK_THAT(decide_requeue(SIGUSR1, 10, policy, restarted).reason, Contains("--max-restarts is 3"));
  policy.requeue_signal = parse_requeue_signal("USR2");
  CHECK(decide_requeue(SIGUSR2, 10, policy, array_task).requeue);
  CHECK(parse_requeue_signal("SIGUSR1") == SIGUSR1);
  CHECK_THROWS_WITH(parse_requeue_signal("TERM"), Contains("'TERM'") && Contains("USR1 or USR2"));
}

TEST_CASE("signal handlers set the flag and are removed afterwards", "[train]") {
  struct sigaction before {};
  ::sigaction(SIGTERM, nullptr, &before);  // Catch2's own handler, or the default
  {
    const InterruptHandlers handlers(SIGUSR2);
    CHECK_FALSE(interrupt_requested());
    std::raise(SIGTERM);
    std::raise(SIGUSR2);  // only the first is kept
    CHECK(interrupt_requested());
    CHECK(interrupt_signal() == SIGTERM);
  }
  struct sigaction now {};
  ::sigaction(SIGTERM, nullptr, &now);
  CHECK(now.sa_handler == before.sa_handler);
  const InterruptHandlers again(SIGUSR1);
  CHECK_FALSE(interrupt_requested());  // cleared when installed
}

TEST_CASE("mid-epoch checkpoint fields read back; a checkpoint without them is an epoch end", "[train]") {
  test::TempDir dir("interrupt-checkpoint");
  torch::nn::Linear model(3, 2);
  torch::optim::AdamW optimizer(model->parameters());
  TrainState state;
  state.history_json = "[]";
  save_checkpoint(dir.path() / "end.pt", *model, optimizer, state);
  CHECK(load_checkpoint(dir.path() / "end.pt", *model, optimizer).mid_epoch.batches == 0);

  state.mid_epoch.batches = 4;
  state.mid_epoch.seconds = 1.5;
  state.mid_epoch.loss_sum = torch::tensor(3.25f);
  state.mid_epoch.correct = torch::tensor(int64_t{7});
  state.mid_epoch.seen = 64;
  state.mid_epoch.cpu_rng = at::detail::getDefaultCPUGenerator().get_state();
  save_checkpoint(dir.path() / "mid.pt", *model, optimizer, state);
  const MidEpoch mid = load_checkpoint(dir.path() / "mid.pt", *model, optimizer).mid_epoch;
  CHECK(mid.batches == 4);
  CHECK(mid.seconds == 1.5);
  CHECK(mid.loss_sum.item<float>() == 3.25f);
  CHECK(mid.correct.item<int64_t>() == 7);
  CHECK(mid.seen == 64);
  CHECK(torch::equal(mid.cpu_rng, state.mid_epoch.cpu_rng));
  CHECK_FALSE(mid.cuda_rng.defined());
}
