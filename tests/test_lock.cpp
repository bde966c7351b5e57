// The per-run lock: one holder at a time, readable holder records, no stale locks after a
// kill, and two repro processes on one --out training each run exactly once.
#include <unistd.h>

#include "catch.h"
#include <cstdio>
#include <filesystem>

#include "fixtures.h"
#include "run/lock.h"
#include "run_repro.h"
#include "util/files.h"
#include "util/strings.h"

using namespace repro;
using repro::test::Contains;

namespace {

// A tiny spec: one ViT row, `seeds` seeds, 2 epochs of a few batches.
std::filesystem::path tiny_spec(const std::filesystem::path& dir, const std::string& seeds) {
  const auto path = dir / "locks.yaml";
  test::write_text(path, "experiment: locks\ndatasets: [fashion_mnist]\nseeds: " + seeds +
                             "\nmodel: {dim: 16, depth: 1, heads: 2, patch: 7}\n"
                             "data: {train_limit: 96, test_limit: 32, val_fraction: 0, verify: off}\n"
                             "train: {epochs: 2, batch_size: 32, eval_batch_size: 64}\n");
  return path;
}

// Starts `repro ARGUMENTS` without waiting for it; finish() collects its output and exit code.
struct Running {
  FILE* pipe;
  test::Result finish() {
    std::string output;
    char buffer[4096];
    while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
    const int status = ::pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), output};
  }
};
Running start_repro(const std::string& arguments) {
  return {::popen((std::string(REPRO_BINARY) + " " + arguments + " 2>&1").c_str(), "r")};
}

}  // namespace

TEST_CASE("a run lock has one holder at a time and records who holds it", "[train]") {
  test::TempDir dir("lock-unit");
  const auto folder = dir.path() / "run/seed_0";
  CHECK_FALSE(RunLock::holder(folder).has_value());  // no folder, no lock file
  {
    auto first = RunLock::try_acquire(folder);
    REQUIRE(first.has_value());
    CHECK(std::filesystem::exists(RunLock::path_in(folder)));
    CHECK_FALSE(RunLock::try_acquire(folder).has_value());  // a second open of the file is refused
    const auto holder = RunLock::holder(folder);
    REQUIRE(holder.has_value());
    CHECK(holder->pid == ::getpid());
    CHECK_FALSE(holder->host.empty());
    CHECK_THAT(holder->describe(), Contains(holder->host + ":" + std::to_string(::getpid())));
    CHECK_FALSE(holder->since.empty());
  }
  CHECK_FALSE(RunLock::holder(folder).has_value());  // released: the file stays, nobody holds it
  CHECK(RunLock::try_acquire(folder).has_value());
}

TEST_CASE("a lock file left behind by an ended process does not block", "[train]") {
  test::TempDir dir("lock-stale");
  const auto folder = dir.path() / "seed_0";
  test::write_text(RunLock::path_in(folder),
                   R"({"host": "elsewhere", "pid": 999999, "slurm_job": "42", "since": "2020-01-01T00:00:00Z"})"
                   "\n");
  CHECK_FALSE(RunLock::holder(folder).has_value());
  const auto lock = RunLock::try_acquire(folder);
  REQUIRE(lock.has_value());
  CHECK_THAT(read_file(RunLock::path_in(folder)), Contains(std::to_string(::getpid())) && !Contains("elsewhere"));
  CHECK(LockHolder{"node7", 12, "42", ""}.describe() == "node7:12 (SLURM job 42)");
}

TEST_CASE("a run whose lock another live process holds is skipped and trained later", "[cli]") {
  test::TempDir dir("lock-held");
  test::write_fashion_fixture(dir.path() / "data", 120, 40);
  const auto spec = tiny_spec(dir.path(), "[0, 1]");
  const std::string arguments = "run " + spec.string() + " --threads 1 --data-root " + (dir.path() / "data").string() +
                                " --out " + (dir.path() / "runs").string();
  const auto held = dir.path() / "runs/locks/fashion_mnist/model/seed_0";
  {
    const auto lock = RunLock::try_acquire(held);  // this test process plays the other repro
    REQUIRE(lock.has_value());
    const test::Result result = test::run_repro(arguments);
    INFO(result.output);
    CHECK(result.exit_code == 0);
    CHECK_THAT(result.output, Contains("is held by") && Contains(":" + std::to_string(::getpid())) &&
                                  Contains("1 of 2 runs are being trained by other processes"));
    CHECK_FALSE(std::filesystem::exists(held / "summary.json"));
    CHECK_FALSE(std::filesystem::exists(held / "log.txt"));
    CHECK_THAT(read_file(dir.path() / "runs/locks/fashion_mnist/model/seed_1/summary.json"),
               Contains("\"status\": \"complete\""));
  }
  const test::Result after = test::run_repro(arguments);
  INFO(after.output);
  CHECK(after.exit_code == 0);
  CHECK_THAT(after.output, Contains("1 of 2 runs were already finished"));
  CHECK_THAT(read_file(held / "summary.json"), Contains("\"status\": \"complete\""));
}

TEST_CASE("two repro processes on one --out train each run exactly once", "[cli]") {
  test::TempDir dir("lock-two");
  test::write_fashion_fixture(dir.path() / "data", 120, 40);
  const auto spec = tiny_spec(dir.path(), "0-5");
  const std::string arguments = "run " + spec.string() + " --threads 1 --data-root " + (dir.path() / "data").string() +
                                " --out " + (dir.path() / "runs").string();
  Running first = start_repro(arguments);
  Running second = start_repro(arguments);
  const test::Result a = first.finish(), b = second.finish();
  INFO("first:\n" << a.output << "\nsecond:\n" << b.output);
  CHECK(a.exit_code == 0);
  CHECK(b.exit_code == 0);
  CHECK(test::count_of(a.output + b.output, " -> ") == 6);  // "run N: model on fashion_mnist, seed k -> folder"
  for (int seed = 0; seed < 6; ++seed) {
    const auto run = dir.path() / ("runs/locks/fashion_mnist/model/seed_" + std::to_string(seed));
    INFO(run.string());
    CHECK(test::count_of(read_file(run / "log.txt"), "] [info] run ") == 1);
    CHECK(split_lines(read_file(run / "metrics.csv")).size() == 3);  // header + 2 epochs, written once
    CHECK_THAT(read_file(run / "summary.json"), Contains("\"status\": \"complete\""));
  }
}
