// Mean, sample std and the markdown table, against hand-computed values.
#include <cmath>

#include "catch.h"
#include "fixtures.h"
#include "report/claims/paper.h"
#include "report/tables/against.h"
#include "report/tables/stats.h"
#include "report/tables/table.h"
#include "run_repro.h"

using namespace repro;
namespace fs = std::filesystem;
using repro::test::Contains;

namespace {

RunResult result(const std::string& config, const std::string& dataset, long long seed, const std::string& status,
                 double value, int row) {
  RunResult r;
  r.model_config = config;
  r.dataset = dataset;
  r.seed = seed;
  r.state = enum_from_name<RunState>(status, "test status");
  r.value = value;
  r.row_index = row;
  return r;
}

}  // namespace

TEST_CASE("mean and sample standard deviation (ddof = 1)", "[report]") {
  CHECK(mean({1, 2, 3, 4}) == Approx(2.5));
  CHECK(sample_std({1, 2, 3, 4}) == Approx(1.2909944487));  // sqrt(5/3)
  CHECK(sample_std({75.9, 76.1}) == Approx(0.1414213562));
  CHECK(std::isnan(sample_std({3})));
  CHECK(std::isnan(mean({})));
}

TEST_CASE("markdown table: mean ± std, bold best, missing and diverged runs shown", "[report]") {
  ExperimentResults r;
  r.name = "t";
  r.model_configs = {"ViT", "DGViT"};
  r.datasets = {"cifar10", "fashion_mnist"};
  r.runs = {
      result("ViT", "cifar10", 0, "complete", 75.0, 0),       result("ViT", "cifar10", 1, "complete", 77.0, 0),
      result("ViT", "fashion_mnist", 0, "complete", 93.0, 0), result("ViT", "fashion_mnist", 1, "pending", 0, 0),
      result("DGViT", "cifar10", 0, "complete", 78.0, 1),     result("DGViT", "cifar10", 1, "complete", 78.5, 1),
      result("DGViT", "fashion_mnist", 0, "diverged", 0, 1),  result("DGViT", "fashion_mnist", 1, "failed", 0, 1)};
  const std::string md = render_markdown(r);
  CHECK_THAT(md, Contains("| model | cifar10 | fashion_mnist |"));
  CHECK_THAT(md, Contains("| ViT | 76.00 ± 1.41 | **93.00 ± n/a** (n=1; 1 pending) |"));
  CHECK_THAT(md, Contains("| DGViT | **78.25 ± 0.35** | — (1 diverged, 1 failed) |"));
  CHECK_THAT(md, Contains("n = 2 seeds"));
  CHECK_THAT(md, Contains("ddof = 1"));
  const std::string csv = render_csv({r});
  CHECK_THAT(csv, Contains("t,ViT,cifar10,test_acc,2,76.000000,1.414214,1,,false"));
  CHECK_THAT(csv, Contains("t,DGViT,fashion_mnist,test_acc,0,,,1,\"1 diverged, 1 failed\",false"));
}

TEST_CASE("the caption's n is the most common cell size, the larger on a tie; the other cells are marked", "[report]") {
  ExperimentResults r;
  r.name = "t";
  r.model_configs = {"A", "B"};
  r.datasets = {"rt", "ng"};
  for (long long seed = 0; seed < 3; ++seed) {  // rt: n = 3 twice; ng: n = 1 twice
    r.runs.push_back(result("A", "rt", seed, "complete", 70.0 + seed, 0));
    r.runs.push_back(result("B", "rt", seed, "complete", 72.0 + seed, 1));
  }
  r.runs.push_back(result("A", "ng", 0, "complete", 60.0, 0));
  r.runs.push_back(result("B", "ng", 0, "complete", 61.0, 1));
  const std::string md = render_markdown(r);
  CHECK_THAT(md, Contains("over n = 3 seeds per cell"));
  CHECK_THAT(md, Contains("| A | 71.00 ± 1.00 | 60.00 ± n/a (n=1) |"));
  CHECK_THAT(md, Contains("| B | **73.00 ± 1.00** | **61.00 ± n/a** (n=1) |"));
}

TEST_CASE("for losses the lowest mean is bold", "[report]") {
  ExperimentResults r;
  r.name = "t";
  r.model_configs = {"a", "b"};
  r.datasets = {"d"};
  r.runs = {result("a", "d", 0, "complete", 0.5, 0), result("b", "d", 0, "complete", 0.4, 1)};
  r.metric = Metric::TestLoss;
  const std::string md = render_markdown(r);
  CHECK_THAT(md, Contains("| b | **0.4000 ± n/a** |"));
  CHECK_THAT(md, Contains("| a | 0.5000 ± n/a |"));
}

TEST_CASE("comparison with the paper: Δ, the 2·max(std) + 0.5 band and the summary line", "[report]") {
  ExperimentResults r;
  r.name = "table1";
  r.model_configs = {"ViT"};
  r.datasets = {"cifar10", "fashion_mnist"};
  r.runs = {result("ViT", "cifar10", 0, "complete", 76.0, 0), result("ViT", "cifar10", 1, "complete", 76.4, 0),
            result("ViT", "fashion_mnist", 0, "complete", 90.0, 0),
            result("ViT", "fashion_mnist", 1, "complete", 90.2, 0)};
  PaperTable table;
  table.number = 1;
  table.experiment = "table1";
  table.metric = Metric::TestAcc;
  table.n = 5;
  table.cells = {
      {"ViT", "cifar10", 75.90, 0.09, ""}, {"ViT", "fashion_mnist", 93.15, 0.11, ""}, {"ViT", "svhn", 93.22, 0.28, ""}};
  const std::string text = compare_with_paper(r, {table});
  // cifar10: Δ = +0.30, band 2·0.28 + 0.5 = 1.07 -> within
  CHECK_THAT(text, Contains("| ViT | cifar10 | 76.20 ± 0.28, 2 | 75.90 ± 0.09 | +0.30 |  |"));
  CHECK_THAT(text, Contains("| ViT | fashion_mnist | 90.10 ± 0.14, 2 | 93.15 ± 0.11 | -3.05 | **outside** |"));
  CHECK_THAT(text, Contains("| ViT | svhn | — | 93.22 ± 0.28 | | no runs |"));
  CHECK_THAT(text, Contains("1 cells within") && Contains("1 outside, 1 without runs"));
  r.metric = Metric::TestLoss;
  CHECK(compare_with_paper(r, {table}).empty());
}

TEST_CASE("comparison with the paper: a reference row of ours is shown, said what it is, never judged", "[report]") {
  ExperimentResults r;
  r.name = "table2";
  r.model_configs = {"Transformer", "Bag of words"};
  r.datasets = {"newsgroups", "imdb"};
  r.runs = {result("Transformer", "newsgroups", 0, "complete", 66.0, 0),
            result("Bag of words", "newsgroups", 0, "complete", 70.0, 1),
            result("Bag of words", "newsgroups", 1, "complete", 70.4, 1)};
  PaperTable table;
  table.number = 2, table.experiment = "table2", table.metric = Metric::TestAcc, table.n = 5;
  table.cells = {{"Transformer", "newsgroups", 51.54, 0.49, ""}};
  table.references = {{"Bag of words", "TF-IDF and one linear layer, a floor."}, {"Other", "never trained"}};
  const std::string text = compare_with_paper(r, {table});
  CHECK_THAT(text, Contains("| Bag of words | newsgroups | 70.20 ± 0.28, 2 | not in the paper | | reference |"));
  CHECK_THAT(text, Contains("*Bag of words* (not in the paper): TF-IDF and one linear layer, a floor."));
  CHECK_THAT(text, !Contains("| Bag of words | imdb") && !Contains("Other"));  // no runs: no line
  CHECK_THAT(text, Contains("0 cells within") && Contains("1 outside, 0 without runs"));  // references not counted
  test::TempDir dir("references");
  const auto file = dir.path() / "p.yaml";
  test::write_text(file, "tables:\n  - table: 2\n    experiment: table2\n    cells: []\n    references: [{row: B}]\n");
  CHECK_THROWS_WITH(read_paper_file(file), Contains("p.yaml:5") && Contains("a reference needs 'what'"));
  test::write_text(file, "tables:\n  - table: 2\n    experiment: table2\n    cells: []\n    references: B\n");
  CHECK_THROWS_WITH(read_paper_file(file), Contains("references must be a list"));
  const auto paper = read_paper_file(std::string(REPRO_SOURCE_DIR) + "/experiments/paper/dgsa.yaml").tables;
  CHECK(paper.at(1).references.at(0).row == "Bag of words");
}

TEST_CASE("a cell's n counts distinct seeds: one seed twice is an error, not a larger n", "[report]") {
  ExperimentResults r;
  r.name = "t";
  r.model_configs = {"ViT"};
  r.datasets = {"cifar10"};
  r.runs = {result("ViT", "cifar10", 0, "complete", 75.0, 0), result("ViT", "cifar10", 1, "pending", 0, 0)};
  CHECK(make_cell(r, "ViT", "cifar10").values.size() == 1);
  r.runs.push_back(result("ViT", "cifar10", 0, "complete", 75.0, 0));
  r.runs.back().path = "runs/t/cifar10/ViT/copy_of_seed_0";
  CHECK_THROWS_WITH(make_cell(r, "ViT", "cifar10"),
                    Contains("seed 0 of ViT on cifar10 appears twice") && Contains("copy_of_seed_0"));
}

TEST_CASE("corrupt and inconsistent records are listed below the table with their problem", "[report]") {
  ExperimentResults r;
  r.name = "t";
  r.model_configs = {"ViT"};
  r.datasets = {"cifar10"};
  r.runs = {result("ViT", "cifar10", 0, "complete", 75.0, 0), result("ViT", "cifar10", 1, "corrupt", 0, 0),
            result("ViT", "cifar10", 2, "inconsistent", 0, 0)};
  r.runs[1].problem = "runs/seed_1/summary.json: not valid JSON";
  r.runs[2].problem = "runs/seed_2/metrics.csv has 3 epochs, runs/seed_2/summary.json says 2";
  const std::string md = render_markdown(r);
  CHECK_THAT(md, Contains("| ViT | 75.00 ± n/a (1 corrupt, 1 inconsistent) |"));
  CHECK_THAT(md, Contains("Records not counted (corrupt or inconsistent):\n"
                          "- corrupt: runs/seed_1/summary.json: not valid JSON\n"
                          "- inconsistent: runs/seed_2/metrics.csv has 3 epochs"));
  r.heading = "t (profile short)";
  CHECK_THAT(render_markdown(r), Contains("### t (profile short): test_acc (%)"));
}

TEST_CASE("--against: seed-by-seed pairs, Δ, the 2 × std seed-noise rule, unpaired runs counted", "[report]") {
  ExperimentResults cpu, gpu;
  cpu.name = gpu.name = "t";
  cpu.profile = gpu.profile = "paper";
  cpu.model_configs = {"A", "B"};
  gpu.model_configs = {"A"};
  cpu.datasets = gpu.datasets = {"newsgroups"};
  // The other side's cell A: 71, 75, 73 (std 2, so 2 × std = 4); ours: seed 0 at -1, seed 1 at +5.
  cpu.runs = {result("A", "newsgroups", 0, "complete", 70, 0), result("A", "newsgroups", 1, "complete", 80, 0),
              result("A", "newsgroups", 3, "complete", 60, 0), result("A", "newsgroups", 4, "failed", 0, 0),
              result("B", "newsgroups", 0, "complete", 50, 1)};
  gpu.runs = {result("A", "newsgroups", 0, "complete", 71, 0), result("A", "newsgroups", 1, "complete", 75, 0),
              result("A", "newsgroups", 2, "complete", 73, 0), result("A", "newsgroups", 4, "complete", 74, 0)};
  cpu.runs[0].selected_epoch = 9, gpu.runs[0].selected_epoch = 10;
  const std::string text = against_report({cpu}, {gpu}, "cpu-runs", "gpu-runs", Metric::TestAcc);
  INFO(text);
  // std of {71, 75, 73, 74} = 1.708; 2 × std = 3.42.
  CHECK_THAT(text, Contains("### cpu-runs against gpu-runs, seed by seed (test_acc)"));
  CHECK_THAT(text, Contains("| A | newsgroups | 0 | 70.00 | 71.00 | -1.00 | 9 / 10 | ? / ? | 3.42 | within seed noise |"));
  CHECK_THAT(text, Contains("| A | newsgroups | 1 | 80.00 | 75.00 | +5.00 | 0 / 0 | ? / ? | 3.42 | **outside** |"));
  // Seed 3 only here, seed 2 only there, seed 4 failed here (not counted), row B only here.
  CHECK_THAT(text, Contains("2 pairs: 1 within seed noise, 1 outside, 0 without a std. Not paired: 2 complete run(s) "
                            "only in cpu-runs, 2 only in gpu-runs."));
  CHECK_THAT(against_report({cpu}, {}, "a", "b", Metric::TestAcc), Contains("(no run is in both)"));
}

TEST_CASE("--against compares the twins' resolved specs and names the other folder's bad records", "[report]") {
  test::TempDir dir("against-specs");
  const auto spec = [&](const std::string& side, int seed, const std::string& lines) {
    const fs::path folder = dir.path() / side / ("seed_" + std::to_string(seed));
    test::write_text(folder / "spec.resolved.yaml",
                     "experiment: t\nmodel_config: A\ndataset: newsgroups\nseed: " + std::to_string(seed) + "\n" +
                         lines);
    return folder.string();
  };
  ExperimentResults cpu, gpu;
  cpu.name = gpu.name = "t";
  cpu.model_configs = gpu.model_configs = {"A"};
  cpu.datasets = gpu.datasets = {"newsgroups"};
  cpu.runs = {result("A", "newsgroups", 0, "complete", 70, 0), result("A", "newsgroups", 1, "complete", 72, 0)};
  gpu.runs = {result("A", "newsgroups", 0, "complete", 71, 0), result("A", "newsgroups", 1, "complete", 73, 0),
              result("A", "newsgroups", 2, "corrupt", 0, 0)};
  // Seed 0: the same settings but for keys that differ by design (precision, checks, where the files are).
  cpu.runs[0].path = spec("cpu", 0, "train:\n  lr: 0.001\n  precision: fp32\ndata:\n  verify: strict\n");
  gpu.runs[0].path = spec("gpu", 0, "train:\n  lr: 0.001\n  precision: bf16\ndata:\n  verify: off\n");
  // Seed 1: trained under another learning rate, 1.0 apart (within a seed noise of 2 x std = 2.83).
  cpu.runs[1].path = spec("cpu", 1, "train:\n  lr: 0.003\n");
  gpu.runs[1].path = spec("gpu", 1, "train:\n  lr: 0.001\n");
  gpu.runs[2].path = (dir.path() / "gpu/seed_2").string();
  gpu.runs[2].problem = gpu.runs[2].path + "/summary.json: record_version 2 is newer than this repro reads (1)";
  const std::string text = against_report({cpu}, {gpu}, "cpu-runs", "gpu-runs", Metric::TestAcc);
  INFO(text);
  CHECK_THAT(text, Contains("| A | newsgroups | 0 | 70.00 | 71.00 | -1.00 |") && Contains("| within seed noise |"));
  CHECK_THAT(text, Contains("| A | newsgroups | 1 | 72.00 | 73.00 | -1.00 |") &&
                       Contains("| **other settings**: train.lr: 0.001 -> 0.003 |"));
  CHECK_THAT(text, Contains("2 pairs: 1 within seed noise, 0 outside, 0 without a std, 1 trained under other "
                            "settings (not judged"));
  CHECK_THAT(text, Contains("1 record(s) of gpu-runs cannot be trusted, not paired:\n\n- corrupt: ") &&
                       Contains("seed_2/summary.json: record_version 2 is newer"));
  CHECK(test::count_of(text, "within seed noise |") == 1);
}

TEST_CASE("a column whose every row is at chance says so under the table", "[report]") {
  // Rotten Tomatoes: two balanced classes (the manifest's counts), 1,066 test examples: always answering one class
  // scores 50 %, two standard errors are ±3.06 points.
  const auto at = [](const std::string& config, long long seed, double value, int row) {
    RunResult r = result(config, "rotten_tomatoes", seed, "complete", value, row);
    r.examples = 1066;
    return r;
  };
  ExperimentResults r;
  r.name = "t";
  r.model_configs = {"A", "B"};
  r.datasets = {"rotten_tomatoes"};
  r.runs = {at("A", 0, 49.2, 0), at("A", 1, 50.6, 0), at("B", 0, 51.0, 1), at("B", 1, 52.9, 1)};
  const std::string note =
      "At chance: every row's mean on rotten_tomatoes (50.0 %, ±3.1 points on 1066 examples) lies "
      "within two standard errors of always answering the most common class";
  CHECK_THAT(render_markdown(r), Contains(note));
  r.runs.back().value = 56.0;  // B's mean 53.45: outside the band, something was learned
  CHECK(render_markdown(r).find("At chance") == std::string::npos);
  r.runs.back().value = 52.9;
  r.metric = Metric::TestLoss;  // not an accuracy: nothing to say
  CHECK(render_markdown(r).find("At chance") == std::string::npos);
  // Fashion-MNIST: ten classes of 1,000 test images each, 10 %.
  ExperimentResults f;
  f.name = "f";
  f.model_configs = {"ViT"};
  f.datasets = {"fashion_mnist"};
  RunResult run = result("ViT", "fashion_mnist", 0, "complete", 10.4, 0);
  run.examples = 10000;
  f.runs = {run};
  CHECK_THAT(render_markdown(f), Contains("fashion_mnist (10.0 %, ±0.6 points on 10000 examples)"));
  f.runs[0].value = 88.6;
  CHECK(render_markdown(f).find("At chance") == std::string::npos);
}

// Through the command line (issue 57: the test above in tests/test_board.cpp calls the claims code directly, so the
// command's reading of the folder at each run's last epoch could be the selected one and pass).
TEST_CASE("report --compare reads each claim at the final epoch beside the selected one, from the command line",
          "[cli][report]") {
  const fs::path source(REPRO_SOURCE_DIR);
  const test::Result report = test::run_repro("report " + (source / "results/table2/gpu").string() + " --compare " +
                                              (source / "experiments/paper/dgsa.yaml").string());
  INFO(report.output);
  REQUIRE(report.exit_code == 0);
  CHECK_THAT(report.output, Contains("ours **contradicted** (at the final epoch: contradicted)"));
  // DGT x16/3 − Transformer on 20 Newsgroups: -1.66 at the selected epochs, -1.77 at the final ones.
  CHECK_THAT(report.output, Contains("| DGT x16/3 − Transformer | newsgroups | -1.66 [-2.31, -1.00] | contradicted | "
                                     "100% | -1.77 [-2.37, -1.17] | contradicted |"));
}
