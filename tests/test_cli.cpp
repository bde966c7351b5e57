// End to end: the repro binary on a generated Fashion-MNIST, as a user runs it.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "fixtures.h"
#include "util/files.h"
#include "util/strings.h"

using namespace repro;
using Catch::Matchers::Contains;

namespace {

struct Result {
  int exit_code;
  std::string output;  // stdout and stderr
};

Result run_repro(const std::string& arguments) {
  const std::string command = std::string(REPRO_BINARY) + " " + arguments + " 2>&1";
  std::string output;
  FILE* pipe = ::popen(command.c_str(), "r");
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int status = ::pclose(pipe);
  return {WEXITSTATUS(status), output};
}

}  // namespace

TEST_CASE("repro run on the smoke spec writes records and a table; a rerun skips", "[cli]") {
  test::TempDir dir("cli");
  test::write_fashion_fixture(dir.path() / "data", 600, 300);
  const std::string spec = std::string(REPRO_SOURCE_DIR) + "/experiments/smoke.yaml";
  const std::string common =
      " --data-root " + (dir.path() / "data").string() + " --out " + (dir.path() / "runs").string();
  const Result first = run_repro("run " + spec + common);
  INFO(first.output);
  REQUIRE(first.exit_code == 0);
  CHECK_THAT(first.output, Contains("| model | fashion_mnist |") && Contains(" ± ") && Contains("n = 2 seeds"));
  const auto run_dir = dir.path() / "runs/smoke/fashion_mnist/vit/seed_1";
  for (const char* file : {"spec.resolved.yaml", "metrics.csv", "summary.json", "log.txt"})
    CHECK(std::filesystem::exists(run_dir / file));
  CHECK_THAT(read_file(run_dir / "summary.json"), Contains("\"status\": \"complete\"") && Contains("\"git_commit\""));
  CHECK(std::filesystem::exists(dir.path() / "runs/smoke/table.md"));

  const Result second = run_repro("run " + spec + common);
  CHECK(second.exit_code == 0);
  CHECK_THAT(second.output, Contains("4 of 4 runs were already finished and were skipped"));

  const Result report = run_repro("report " + (dir.path() / "runs").string() + " --format csv");
  CHECK(report.exit_code == 0);
  CHECK_THAT(report.output, Contains("smoke,vit,fashion_mnist,test_acc,2,"));
}

TEST_CASE("a misspelt key exits non-zero naming the key and suggesting the right one", "[cli]") {
  test::TempDir dir("cli-typo");
  test::write_text(dir.path() / "bad.yaml", "datasets: [fashion_mnist]\ntrain:\n  epohcs: 3\n");
  const Result result = run_repro("run " + (dir.path() / "bad.yaml").string());
  CHECK(result.exit_code != 0);
  CHECK_THAT(result.output, Contains("bad.yaml:3") && Contains("unknown key 'train.epohcs'") &&
                                Contains("did you mean 'train.epochs'?"));
  const Result override_typo =
      run_repro("run " + std::string(REPRO_SOURCE_DIR) + "/experiments/smoke.yaml model.dimm=4");
  CHECK(override_typo.exit_code != 0);
  CHECK_THAT(override_typo.output, Contains("did you mean 'model.dim'?"));
}

TEST_CASE("dry run, params, list and version", "[cli]") {
  const std::string spec = std::string(REPRO_SOURCE_DIR) + "/experiments/smoke.yaml";
  const Result dry = run_repro("run " + spec + " --dry-run");
  CHECK(dry.exit_code == 0);
  CHECK_THAT(dry.output, Contains("4 runs in 2 model configuration x dataset pairs") && Contains("model.dim = 32"));
  const Result params = run_repro("params " + spec);
  CHECK(params.exit_code == 0);
  CHECK_THAT(params.output, Contains("| vit | fashion_mnist |"));
  const Result list = run_repro("list");
  CHECK_THAT(list.output, Contains("vanilla") && Contains("train.lr") && Contains("fashion_mnist"));
  const Result version = run_repro("--version");
  CHECK_THAT(version.output, Contains("LibTorch") && Contains("BLAS") && Contains("git commit"));
  test::TempDir dir("cli-missing");
  const Result missing = run_repro("run " + spec + " --data-root /nonexistent --out " + dir.path().string());
  CHECK(missing.exit_code != 0);
  CHECK_THAT(missing.output, Contains("missing file train-images-idx3-ubyte.gz") && Contains("/nonexistent"));
}

TEST_CASE("a run killed with SIGKILL mid-epoch resumes to the numbers of an undisturbed run", "[cli]") {
  test::TempDir dir("cli-kill");
  test::write_fashion_fixture(dir.path() / "data", 400, 100);
  const std::string spec = std::string(REPRO_SOURCE_DIR) + "/experiments/smoke.yaml";
  const std::string data = " --data-root " + (dir.path() / "data").string();
  const std::string overrides = " train.epochs=3 data.train_limit=0 data.test_limit=0";
  REQUIRE(run_repro("run " + spec + overrides + data + " --out " + (dir.path() / "calm").string()).exit_code == 0);
  // 350 training images (val 1/8 held out) at batch 64: 6 steps per epoch; step 9 is mid-epoch 2.
  const std::string killed_out = " --out " + (dir.path() / "killed").string();
  const Result killed = run_repro("run " + spec + overrides + data + killed_out + " --kill-at-step 9");
  CHECK(killed.exit_code != 0);
  const auto run_dir = dir.path() / "killed/smoke/fashion_mnist/vit/seed_0";
  CHECK(std::filesystem::exists(run_dir / "checkpoint.pt"));
  CHECK(split_lines(read_file(run_dir / "metrics.csv")).size() == 2);  // header + epoch 1
  const Result resumed = run_repro("run " + spec + overrides + data + killed_out);
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK_THAT(resumed.output, Contains("resuming"));
  for (const char* config : {"vit", "vit-mlp4"})
    for (const char* seed : {"seed_0", "seed_1"}) {
      const auto rel = std::filesystem::path("smoke/fashion_mnist") / config / seed / "metrics.csv";
      auto strip = [](const std::string& text) {  // drop the wall-time column
        std::string out;
        for (const auto& line : split_lines(text)) out += line.substr(0, line.rfind(',')) + "\n";
        return out;
      };
      INFO(rel.string());
      CHECK(strip(read_file(dir.path() / "killed" / rel)) == strip(read_file(dir.path() / "calm" / rel)));
    }
}

TEST_CASE("repro bench times each model of a spec and writes bench.json", "[cli]") {
  test::TempDir dir("bench");
  const std::string spec = std::string(REPRO_SOURCE_DIR) + "/experiments/smoke.yaml";
  const auto json_path = dir.path() / "bench.json";
  const Result result = run_repro("bench " + spec + " --steps 2 --warmup 1 --eval-batches 1 --device cpu --out " +
                                  json_path.string() + " train.eval_batch_size=8");
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.output, Contains("| model | dataset | params |") && Contains("MFU against"));
  const auto bench = nlohmann::json::parse(read_file(json_path));
  REQUIRE(bench["results"].size() >= 1);
  const auto& first = bench["results"][0];
  CHECK(first["train_ms_per_step"].get<double>() > 0);
  CHECK(first["forward_flops_per_example"].get<double>() > 0);
  CHECK(first["settings"]["model.attention.kind"].is_string());
  CHECK(bench["environment"]["device"] == "cpu");
  CHECK(bench["peak_tflops"].get<double>() > 0);

  const Result bad = run_repro("bench " + spec + " --only no_such_model --out " + json_path.string());
  CHECK(bad.exit_code != 0);
  CHECK_THAT(bad.output, Contains("--only 'no_such_model'"));
}

TEST_CASE("repro data info takes the dataset name and then data.* settings", "[cli]") {
  test::TempDir dir("datainfo");
  test::write_fashion_fixture(dir.path() / "data", 60, 20);
  const Result result =
      run_repro("data info fashion_mnist data.train_limit=30 --data-root " + (dir.path() / "data").string());
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.output, Contains("train: 30 examples"));
}
