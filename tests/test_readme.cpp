// The README's quick-start table is what the quick start prints (issue 46). `repro run` prints
// render_report(OUT/quickstart) when it ends; results/quickstart holds the records of a real run of
// README command (1), so the README's block must equal `repro report results/quickstart` (and the table.md that
// run wrote). A short run of the same spec must equal its committed record (tests/reference/quickstart_short),
// so a change to training that would move the README's numbers fails here even without the 9-minute run.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <regex>

#include "catch.h"
#include "fixtures.h"
#include "record/metric.h"
#include "record/run_record.h"
#include "report/tables/table.h"
#include "spec/run_spec.h"
#include "run_repro.h"
#include "util/files.h"
#include "util/strings.h"
#include "util/version.h"

using namespace repro;
using repro::test::Result;
using repro::test::run_repro;
namespace fs = std::filesystem;

namespace {

const char* const kHeading = "### quickstart: test_acc (%)";

// The fenced block of a README that begins with the quick start's table heading ("" when there is none).
std::string quickstart_block(const std::string& readme) {
  const auto at = readme.find("```\n" + std::string(kHeading));
  if (at == std::string::npos) return "";
  const auto start = at + 4;
  const auto end = readme.find("```", start);
  return end == std::string::npos ? "" : readme.substr(start, end - start);
}

// Where the README and the records disagree, in one line ("" when they agree).
std::string readme_mismatch(const std::string& readme, const fs::path& records) {
  const std::string block = quickstart_block(readme);
  if (block.empty()) return "README.md has no ``` block beginning with '" + std::string(kHeading) + "'";
  const std::string table = render_report(records, ReportOptions{});
  if (block != table)
    return "README.md's quick-start block is not `repro report " + records.string() + "`:\n" + block + "---\n" + table;
  return "";
}

fs::path source(const std::string& relative) { return fs::path(REPRO_SOURCE_DIR) / relative; }

// The record's last-epoch value of a metric.
double final_value(const RunRecord& record, Metric metric) {
  REQUIRE(record.final);
  const auto value = record.final->metrics.at(metric);
  REQUIRE(value);
  return *value;
}

std::string two_decimals(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

}  // namespace

TEST_CASE("the README's quick-start table is repro report of the committed quick-start records", "[report]") {
  const std::string readme = read_file(source("README.md"));
  const fs::path records = source("results/quickstart");
  CHECK(readme_mismatch(readme, records) == "");
  // What `repro run` printed and wrote beside the records when they were made.
  CHECK(read_file(records / "table.md") == render_report(records, ReportOptions{}));
  // The per-seed sentence under it: "Per seed: A and B % test accuracy", each seed's selected-epoch test accuracy.
  std::smatch seeds;
  REQUIRE(std::regex_search(readme, seeds, std::regex(R"(Per seed: ([0-9.]+) and ([0-9.]+) % test accuracy)")));
  for (int seed = 0; seed < 2; ++seed) {
    const auto summary = nlohmann::json::parse(
        read_file(records / "fashion_mnist/ViT-tiny" / ("seed_" + std::to_string(seed)) / "summary.json"));
    const double acc = summary["selected"]["test_acc"].get<double>();
    INFO("seed " << seed << ": " << acc);
    CHECK(seeds[seed + 1].str() == two_decimals(acc));
  }
  // The check is not blind: every single-digit edit of the README's block is caught.
  const std::string block = quickstart_block(readme);
  const auto at = readme.find(block);
  int digits = 0;
  for (size_t i = 0; i < block.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(block[i]))) continue;
    std::string edited = readme;
    edited[at + i] = block[i] == '9' ? '0' : static_cast<char>(block[i] + 1);
    INFO("digit " << i << " of the block");
    CHECK(readme_mismatch(edited, records) != "");
    ++digits;
  }
  CHECK(digits >= 6);  // at least the two numbers of the cell
}

TEST_CASE("a short quick-start run equals its committed record: training has not drifted", "[real]") {
  const char* root = std::getenv("REPRO_DATA");
  if (!root) {
    WARN("skipped: set REPRO_DATA to the datasets folder to rerun the short quick start");
    return;
  }
  // The command that made tests/reference/quickstart_short (then `repro collect OUT/quickstart …`); run it again
  // there when a change to training is meant to move the numbers, and regenerate the README's quick start too.
  const std::string settings =
      " --threads 1 train.epochs=2 train.warmup_steps=8 data.train_limit=2048 data.test_limit=1000";
  test::TempDir dir("quickstart-short");
  // repro runs the portable CPU kernels by default (util/cpu_kernels.h: OpenBLAS's Haswell set, ATen's AVX2 and
  // oneDNN's AVX2 kernels), as the reference did, so on every x86-64 CPU with AVX2 and FMA the float sums run in the
  // reference's order (docs/performance.md, "Digits that repeat on every x86-64 CPU").
  ::setenv("REPRO_CACHE", (dir.path() / "cache").c_str(), 1);
  const Result result = test::run_command(REPRO_BINARY + std::string(" run ") +
                                          source("experiments/quickstart.yaml").string() + " --data-root " + root +
                                          " --out " + (dir.path() / "out").string() + settings);
  ::unsetenv("REPRO_CACHE");
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  for (const char* seed : {"seed_0", "seed_1"}) {
    INFO(seed);
    const fs::path run = dir.path() / "out/quickstart/fashion_mnist/ViT-tiny" / seed;
    const fs::path reference = source("tests/reference/quickstart_short/fashion_mnist/ViT-tiny") / seed;
    const RunRecord now = read_run_record(run / "summary.json");
    const RunRecord then = read_run_record(reference / "summary.json");
    // The same settings as the reference's (compared as the plan check compares them: a reference written before
    // 0.8.0 also lists keys the run does not read, which spec.resolved.yaml now leaves out).
    CHECK(setting_differences(read_file(reference / "spec.resolved.yaml"), read_file(run / "spec.resolved.yaml"),
                              /*ignore_by_design=*/false)
              .empty());
    // Bit for bit where every factor of the float sums' order is the reference's (record/run_record.h: SumOrder:
    // LibTorch, threads, OpenBLAS's kernels, ATen's capability, oneDNN's instruction set); elsewhere (the Debian 13
    // lane's LibTorch 2.6, a CPU without AVX2 and FMA, REPRO_CPU_KERNELS=native) loosely: another order moves 32
    // steps' results a little (the two seeds, 52.50 and 48.00, differ by 4.5 points), so there this catches only
    // large drifts.
    const std::string differences = sum_order_differences(now.sum_order, then.sum_order);
    if (differences.empty()) {
      CHECK(test::metrics_without_seconds(run / "metrics.csv") ==
            test::metrics_without_seconds(reference / "metrics.csv"));
    } else {
      WARN("the float sums run in another order than the reference's (" << differences
                                                                         << "): compared within 1.5 points and 2% of the loss");
      for (const Metric metric : {Metric::TestAcc, Metric::TrainAcc})
        CHECK(std::abs(final_value(now, metric) - final_value(then, metric)) <= 1.5);
      CHECK(final_value(now, Metric::TestLoss) == Approx(final_value(then, Metric::TestLoss)).epsilon(0.02));
    }
  }
}
