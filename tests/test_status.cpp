// repro status as strict as the commands beside it (issue 57): a selector that selects nothing is refused as report
// refuses it, a spec's runs trained under other settings are not "complete"; and a running run's epoch and last step
// (issue 58), read from its folder.
#include <signal.h>

#include <filesystem>

#include "catch.h"
#include "fixtures.h"
#include "run/lock.h"
#include "run_repro.h"
#include "util/files.h"

using namespace repro;
using repro::test::Contains;
namespace fs = std::filesystem;

namespace status_test {

// 96 training images, a quarter for validation: 72 at batch 16 = 5 steps an epoch, 3 epochs.
const char* kSpec = R"(experiment: st
datasets: [fashion_mnist]
seeds: [2]
model: {dim: 16, depth: 1, heads: 2, patch: 7, ffn: {ratio: 2}}
data: {val_fraction: 0.25, verify: off}
train: {epochs: 3, batch_size: 16, lr: 3e-3, warmup_steps: 2, log_every: 2}
)";

struct Setup {
  test::TempDir dir;
  fs::path spec;
  explicit Setup(const std::string& name) : dir(name), spec(dir.path() / "st.yaml") {
    test::write_fashion_fixture(dir.path() / "data", 96, 32);
    test::write_text(spec, kSpec);
  }
  std::string run_args(const std::string& out, const std::string& extra = "") const {
    return "run " + spec.string() + " --data-root " + (dir.path() / "data").string() + " --out " +
           (dir.path() / out).string() + " --threads 1 " + extra;
  }
  fs::path run_dir(const std::string& out) const { return dir.path() / out / "st/fashion_mnist/model/seed_2"; }
};

}  // namespace status_test

TEST_CASE("repro status OUT refuses a selector that selects no run, naming those there, as report does", "[cli]") {
  status_test::Setup s("status-selectors");
  REQUIRE(test::run_repro(s.run_args("runs", "train.epochs=1")).exit_code == 0);
  const std::string out = (s.dir.path() / "runs").string();
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"--rows zz", "--rows zz: no run of that row here (rows: model)"},
      {"--seeds 9", "--seeds: no run of seed 9 here (seeds: 2)"},
      {"--datasets ''", "--datasets '': no run of that dataset here (datasets: fashion_mnist)"},
      {"--datasets imdb", "--datasets imdb: no run of that dataset here (datasets: fashion_mnist)"}};
  for (const auto& [selector, words] : refused) {
    for (const std::string command : {"status", "report"}) {
      const test::Result result = test::run_repro(command + " " + out + " " + selector);
      INFO(command << " " << selector << "\n" << result.output);
      CHECK(result.exit_code == 2);
      CHECK_THAT(result.output, Contains(words));
      CHECK(test::count_of(result.output, "\n") == 1);
    }
  }
  const test::Result kept = test::run_repro("status " + out + " --rows model --seeds 2 --datasets fashion_mnist");
  CHECK(kept.exit_code == 0);
  CHECK_THAT(kept.output, Contains("1 runs: 1 complete"));
}

TEST_CASE("repro status SPEC: a run trained under other settings is of another spec, not complete, as run says",
          "[cli]") {
  status_test::Setup s("status-other-spec");
  REQUIRE(test::run_repro(s.run_args("runs", "train.epochs=1 train.lr=1e-3")).exit_code == 0);
  const std::string out = (s.dir.path() / "runs").string();
  const test::Result with_override =
      test::run_repro("status " + s.spec.string() + " --out " + out + " train.epochs=1 train.lr=1e-3");
  CHECK_THAT(with_override.output, Contains("1 runs: 1 complete"));
  const test::Result plain = test::run_repro("status " + s.spec.string() + " --out " + out + " train.epochs=1");
  INFO(plain.output);
  CHECK(plain.exit_code == 0);
  CHECK_THAT(plain.output, Contains("1 runs: 0 complete") && Contains("1 of another spec, not counted"));
  CHECK_THAT(plain.output, Contains("inconsistent fashion_mnist/model/seed_2  holds a run of a different spec "
                                    "(train.lr: ") &&
                               Contains("not counted (repro run refuses it)"));
  // What repro run says of the same folder.
  const test::Result run = test::run_repro(s.run_args("runs", "train.epochs=1"));
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.output, Contains(s.run_dir("runs").string() + " holds a run of a different spec (train.lr: "));
}

TEST_CASE("repro status shows a running run's epoch and last step, from its folder", "[cli]") {
  status_test::Setup s("status-progress");
  // Killed at step 9: epoch 1 (steps 1-5) is in metrics.csv, steps 2 and 4 in steps.csv, 6 and 8 in the event file.
  REQUIRE(test::run_repro_faults(s.run_args("runs", "--kill-at-step 9")).exit_code == 128 + SIGKILL);
  const auto held = RunLock::try_acquire(s.run_dir("runs"));  // as the process training it would
  REQUIRE(held);
  const test::Result status = test::run_repro("status " + (s.dir.path() / "runs").string());
  INFO(status.output);
  CHECK(status.exit_code == 0);
  CHECK_THAT(status.output, Contains("1 running"));
  CHECK_THAT(status.output, Contains("running    fashion_mnist/model/seed_2  epoch 2 of 3, step 8 of about 15 "
                                     "(logged 20") &&
                                Contains("; held by "));
  // Without the event file the last row of steps.csv (written at the checkpoint) says it.
  for (const auto& file : fs::directory_iterator(s.run_dir("runs")))
    if (file.path().filename().string().find("tfevents") != std::string::npos) fs::remove(file.path());
  CHECK_THAT(test::run_repro("status " + (s.dir.path() / "runs").string()).output,
             Contains("epoch 2 of 3, step 4 of about 15"));
}

// Issue 64, item 3: `repro status results` left out table2/cpu_newsgroups, whose runs (started with --index by a
// binary before 0.7.1) had no plan.json, though docs/commands.md says it lists every committed experiment. Since
// issue 66 that folder has a plan.json (repro collect writes one listing the records there); a copy of it without
// one stands for such a folder, beside a copy of table2/gpu, which has its plan.
TEST_CASE("repro status lists a folder of records without a plan.json, from its records", "[cli]") {
  const fs::path committed = fs::path(REPRO_SOURCE_DIR) / "results";
  test::TempDir dir("status-planless");
  const fs::path results = dir.path() / "results", planless = results / "table2/cpu_newsgroups";
  for (const char* folder : {"table2/cpu_newsgroups", "table2/gpu"}) {
    fs::create_directories(results / folder);
    fs::copy(committed / folder, results / folder, fs::copy_options::recursive);
  }
  fs::remove(planless / "plan.json");
  int runs = 0, diff_runs = 0;  // the copy's records, whatever later collects add
  for (const auto& entry : fs::recursive_directory_iterator(planless))
    if (entry.path().filename() == "summary.json")
      ++runs, diff_runs += entry.path().string().find("/DIFF_Transformer_x16_3/") != std::string::npos;
  REQUIRE(diff_runs >= 1);
  const test::Result status = test::run_repro("status " + results.string());
  INFO(status.output);
  CHECK(status.exit_code == 0);
  CHECK_THAT(status.output, Contains("table2/cpu_newsgroups (" + planless.string() + "): " + std::to_string(runs) +
                                     " runs: " + std::to_string(runs) + " complete, 0 running") &&
                                Contains("  no plan.json: the runs its records show"));
  CHECK_THAT(status.output, Contains("table2/gpu ("));
  // Its selectors reach those runs too.
  const test::Result diff = test::run_repro("status " + results.string() + " --rows 'DIFF Transformer x16/3'");
  INFO(diff.output);
  CHECK(diff.exit_code == 0);
  CHECK_THAT(diff.output, Contains("table2/cpu_newsgroups (" + planless.string() + "): " +
                                   std::to_string(diff_runs) + " runs: " + std::to_string(diff_runs) + " complete"));
  // And the committed tree: every experiment folder listed.
  const test::Result all = test::run_repro("status " + committed.string());
  CHECK(all.exit_code == 0);
  CHECK_THAT(all.output, Contains("table2/cpu_newsgroups (") && Contains("table2/gpu (") && Contains("table2/paper ("));
}
