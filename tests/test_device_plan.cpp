// The GPU loan plan (scripts/device-plan) and scripts/device-check's train phase, dry, on the CPU (issue 45): every
// step plans with this binary the runs the plan counts, and the train phase walks the steps, resumes committed
// records and packs what it has without a GPU, a build or a dataset.
#include <filesystem>
#include <string>

#include "catch.h"
#include "fixtures.h"
#include "run_repro.h"
#include "util/files.h"

using namespace repro;
using repro::test::Result;
using repro::test::run_command;
namespace fs = std::filesystem;

namespace {

std::string source(const std::string& relative) { return (fs::path(REPRO_SOURCE_DIR) / relative).string(); }

// `plan_check` of scripts/device-plan with this binary, after EDIT (bash run between sourcing and the check).
Result plan_check(const std::string& edit = "") {
  const std::string script = ". " + source("scripts/device-plan") + "; " + edit + " plan_check " + REPRO_BINARY;
  return run_command("cd " + std::string(REPRO_SOURCE_DIR) + " && bash -c '" + script + "'");
}

}  // namespace

TEST_CASE("every step of the loan plan plans with this binary the runs the plan counts", "[cli]") {
  const Result result = plan_check();
  INFO(result.output);
  CHECK(result.exit_code == 0);
  for (const char* line : {"step a: 25 runs (experiments/table2.yaml --profile paper, newsgroups",
                           "step b: 35 runs (experiments/table2.yaml --profile paper, imdb",
                           "step c: 20 runs (experiments/table1.yaml --profile paper, fashion_mnist",
                           "step d: 24 runs (experiments/probes/newsgroups_baseline.yaml, newsgroups",
                           "step e: 20 runs (experiments/table1.yaml --profile paper, cifar10"})
    CHECK(result.output.find(line) != std::string::npos);
}

TEST_CASE("a loan plan step with an unknown row or another run count is refused, naming the step", "[cli]") {
  // Step a names a row table2 does not have; step b drops its rows (all eight, the bag of words included: 40).
  const Result result = plan_check(
      "plan_steps[0]=\"a|experiments/table2.yaml|paper|newsgroups|DGT x9|25|20newsgroups|300\"; "
      "plan_steps[1]=\"b|experiments/table2.yaml|paper|imdb||35|imdb|750\";");
  INFO(result.output);
  CHECK(result.exit_code == 1);
  CHECK(result.output.find("step a (experiments/table2.yaml --profile paper, newsgroups): repro: error: --rows "
                           "'DGT x9'") != std::string::npos);
  CHECK(result.output.find("step b (experiments/table2.yaml --profile paper, imdb): repro plans 40 runs, the plan "
                           "says 35") != std::string::npos);
  CHECK(result.output.find("step c: 20 runs") != std::string::npos);  // the other steps are still listed
}

TEST_CASE("device-check's train phase runs dry on the CPU: the plan checked, records resumed, steps without data "
          "skipped, the records packed",
          "[cli]") {
  test::TempDir dir("device-check-dry");
  fs::create_directories(dir.path() / "data");  // no dataset: every step is skipped, nothing trains
  const std::string command = "cd " + std::string(REPRO_SOURCE_DIR) + " && DEVICE_REPRO=" + REPRO_BINARY +
                              " REPRO_CACHE=" + (dir.path() / "cache").string() + " PYTHON=true" +
                              " scripts/device-check --device cpu --phases train --deadline 600 --data " +
                              (dir.path() / "data").string() + " --runs " + (dir.path() / "runs").string() +
                              " --out " + (dir.path() / "out").string() +
                              " --resume-from table2/paper=results/table2/gpu";
  const Result result = run_command(command);
  INFO(result.output);
  CHECK(result.exit_code == 0);
  CHECK(result.output.find("device-plan: step e: 20 runs") != std::string::npos);
  // The committed 20 Newsgroups records of the leases, copied in: step a's rows are those they do not have.
  CHECK(fs::exists(dir.path() / "runs/table2/paper/newsgroups/Transformer/seed_0/summary.json"));
  const std::string phases = read_file(dir.path() / "out/phases.txt");
  for (const char* row : {"| train-a-20newsgroups | skipped | 0 | 0 of 25 complete; 20newsgroups not in",
                          "| train-b-imdb | skipped | 0 | 0 of 35 complete; imdb not in",
                          "| train-c-fashion_mnist | skipped |", "| train-d-20newsgroups | skipped |",
                          "| train-e-cifar10 | skipped |", "| pack | ok |"})
    CHECK(phases.find(row) != std::string::npos);
  CHECK(fs::exists(dir.path() / "out/records.tar.gz"));
}
