// The Welch table of `repro report --stats`, the baseline row (report.baseline,
// --baseline) and the paper's claims (experiments/paper/dgsa.yaml) judged on
// synthetic records with a known outcome. Expected numbers of the paper's own
// tables: mpmath (see tests/welch_reference.py), written in below.
#include <cmath>

#include "catch.h"
#include "fixtures.h"
#include "report/claims/claims.h"
#include "report/claims/ledger.h"
#include "report/claims/paper.h"
#include "report/tables/significance.h"
#include "report/tables/table.h"
#include "report/tables/welch.h"
#include "spec/experiment.h"
#include "util/error.h"
#include "util/files.h"

using namespace repro;
using repro::test::Contains;

namespace {

RunResult complete(const std::string& row, const std::string& dataset, long long seed, double value) {
  RunResult r;
  r.model_config = row, r.dataset = dataset, r.seed = seed, r.state = RunState::Complete, r.value = value;
  return r;
}

// Rows "ViT" and "DGViT" on cifar10; each value list is one row's seeds.
ExperimentResults two_rows(const std::vector<double>& vit, const std::vector<double>& dgvit) {
  ExperimentResults r;
  r.name = "table1";
  r.model_configs = {"ViT", "DGViT x4 drop x2"};
  r.datasets = {"cifar10"};
  for (size_t i = 0; i < vit.size(); ++i) r.runs.push_back(complete("ViT", "cifar10", i, vit[i]));
  for (size_t i = 0; i < dgvit.size(); ++i) r.runs.push_back(complete("DGViT x4 drop x2", "cifar10", i, dgvit[i]));
  return r;
}

const std::string kPaper = std::string(REPRO_SOURCE_DIR) + "/experiments/paper/dgsa.yaml";

Claim cifar10_claim(double margin) {
  Claim claim;
  claim.text = "DGViT beats ViT on CIFAR-10";
  claim.experiment = "table1";
  claim.pairs = {{"DGViT x4 drop x2", "ViT"}};
  claim.datasets = {"cifar10"};
  claim.margin = margin;
  return claim;
}

Verdict verdict_on(const ExperimentResults& results, const Claim& claim) {
  return evaluate_claim(claim, [&](const std::string& row,
                                   const std::string& dataset) { return results_sample(results, row, dataset); })
      .verdict;
}

}  // namespace

TEST_CASE("stats table: each row minus the baseline with CI and p; 'n too small' with one seed", "[report]") {
  // ViT 75, 76, 77 (mean 76, std 1); DGViT 79, 80, 81 (mean 80, std 1): Δ = 4, se = sqrt(2/3), df = 4,
  // t_0.975(4) = 2.776445105 -> CI 4 ± 2.266939 = [1.73, 6.27]; t = 4.898979, p = 0.0080498931 (mpmath).
  const ExperimentResults r = two_rows({75, 76, 77}, {79, 80, 81});
  CHECK(stats_by_default(r));
  const std::string md = render_results_stats(r, resolve_baseline(r, ""));
  CHECK_THAT(md, Contains("| ViT | baseline |"));
  CHECK_THAT(md, Contains("| DGViT x4 drop x2 | **+4.00 [+1.73, +6.27], p = 0.008** |"));
  const WelchResult w = welch_test({80, 1, 3}, {76, 1, 3});
  CHECK(w.df == Approx(4));
  CHECK(w.p == Approx(0.0080498931).epsilon(1e-8));

  const ExperimentResults single = two_rows({75}, {79});
  CHECK_FALSE(stats_by_default(single));
  CHECK_THAT(render_results_stats(single, {"ViT", {}}), Contains("| +4.00 (n too small) |"));
}

TEST_CASE("the baseline row: --baseline, then the plan's report.baseline, then the first row", "[report]") {
  ExperimentResults r = two_rows({75, 76}, {79, 80});
  CHECK(resolve_baseline(r, "").row == "ViT");
  r.baseline = "DGViT x4 drop x2", r.baseline_source = "runs/table1/plan.json";
  CHECK(resolve_baseline(r, "").row == "DGViT x4 drop x2");
  CHECK(resolve_baseline(r, "ViT").row == "ViT");
  r.baseline = "DGVIT";
  CHECK_THROWS_WITH(resolve_baseline(r, ""), Contains("report.baseline in runs/table1/plan.json") &&
                                                 Contains("'DGVIT' is not a row") && Contains("ViT, DGViT x4 drop x2"));
}

// A sweep over train.lr turns the spec's rows "vanilla" and "dgsa" into "vanilla+lr=0.001", …: report.baseline
// 'vanilla' (a spec row) then compares each row with vanilla at the same learning rate (it threw away the
// table before, after every run had trained).
TEST_CASE("in a sweep, the baseline spec row is compared at the same sweep values", "[report]") {
  ExperimentResults r;
  r.name = "sweep";
  r.datasets = {"cifar10"};
  r.model_configs = {"vanilla+lr=0.001", "vanilla+lr=0.003", "dgsa+lr=0.001", "dgsa+lr=0.003"};
  const std::vector<std::vector<double>> values = {{70, 71}, {60, 61}, {75, 76}, {62, 63}};
  for (size_t row = 0; row < values.size(); ++row)
    for (size_t seed = 0; seed < 2; ++seed)
      r.runs.push_back(complete(r.model_configs[row], "cifar10", static_cast<long long>(seed), values[row][seed]));
  r.baseline = "vanilla", r.baseline_source = "runs/sweep/plan.json";
  const Baseline baseline = resolve_baseline(r, "");
  CHECK(baseline.row == "vanilla");
  CHECK(baseline.row_of.at("dgsa+lr=0.003") == "vanilla+lr=0.003");
  const std::string md = render_results_stats(r, baseline);
  CHECK_THAT(md, Contains("each row − vanilla at the same sweep values"));
  CHECK_THAT(md, Contains("| vanilla+lr=0.001 | baseline |") && Contains("| vanilla+lr=0.003 | baseline |"));
  CHECK_THAT(md, Contains("| dgsa+lr=0.001 | **+5.00") && Contains("| dgsa+lr=0.003 | +2.00"));
  CHECK(resolve_baseline(r, "dgsa").row_of.at("vanilla+lr=0.001") == "dgsa+lr=0.001");  // --baseline too
  r.baseline = "gone";  // a stale plan: the table keeps its Welch part out, the report goes on
  CHECK_THROWS_WITH(resolve_baseline(r, ""), Contains("'gone' is not a row of experiment sweep"));
}

// Records that carry their row and sweep values (as collect_results reads them): a swept configuration whose sweep
// values the baseline row was never trained at has no baseline, even beside a plain baseline run (issue 57: it was
// compared with the plain run, at another learning rate, and every test passed).
TEST_CASE("in a sweep, a configuration at sweep values the baseline row lacks has no baseline", "[report]") {
  ExperimentResults r;
  r.name = "sweep";
  r.datasets = {"cifar10"};
  struct Swept {
    std::string name, row;
    SweepValues sweep;
    std::vector<double> values;
  };
  const std::vector<Swept> configs = {{"vanilla", "vanilla", {}, {50, 51}},
                                      {"vanilla+lr=0.001", "vanilla", {{"lr", "0.001"}}, {70, 71}},
                                      {"dgsa+lr=0.001", "dgsa", {{"lr", "0.001"}}, {75, 76}},
                                      {"dgsa+lr=0.003", "dgsa", {{"lr", "0.003"}}, {62, 63}}};
  for (const auto& config : configs) {
    r.model_configs.push_back(config.name);
    for (size_t seed = 0; seed < config.values.size(); ++seed) {
      RunResult run = complete(config.name, "cifar10", static_cast<long long>(seed), config.values[seed]);
      run.row = config.row, run.sweep = config.sweep;
      r.runs.push_back(run);
    }
  }
  r.baseline = "vanilla", r.baseline_source = "runs/sweep/plan.json";
  const Baseline baseline = resolve_baseline(r, "");
  CHECK(baseline.row == "vanilla");
  CHECK(baseline.row_of.at("dgsa+lr=0.001") == "vanilla+lr=0.001");
  CHECK(baseline.row_of.at("dgsa+lr=0.003").empty());
  const std::string md = render_results_stats(r, baseline);
  INFO(md);
  CHECK_THAT(md, Contains("| dgsa+lr=0.001 | **+5.00"));
  CHECK_THAT(md, Contains("| dgsa+lr=0.003 | — (no baseline run at its sweep values) |"));
}

TEST_CASE("report.baseline in a spec must name a row (file:line)", "[report]") {
  test::TempDir dir("report-baseline");
  const auto spec = dir.path() / "s.yaml";
  test::write_text(spec, "datasets: [fashion_mnist]\nmodels:\n  - name: a\n  - name: b\nreport:\n  baseline: c\n");
  CHECK_THROWS_WITH(load_experiment(spec.string()),
                    Contains("s.yaml:6") && Contains("report.baseline: 'c' is not a row") && Contains("rows: a, b"));
  test::write_text(spec, "datasets: [fashion_mnist]\nmodels:\n  - name: a\n  - name: b\nreport: {baseline: b}\n");
  CHECK(load_experiment(spec.string()).report_baseline == "b");
  test::write_text(spec, "datasets: [fashion_mnist]\nreport: {basline: b}\n");
  CHECK_THROWS_WITH(load_experiment(spec.string()), Contains("s.yaml:2") && Contains("'report.basline': unknown key"));
}

TEST_CASE("a claim's verdict: CI beyond the margin, on the other side, or neither", "[report]") {
  WelchResult w;
  w.status = WelchStatus::Ok, w.ci_low = 2.1, w.ci_high = 3;
  CHECK(verdict_of(w, 2) == Verdict::Supported);
  w.ci_low = 1.5;
  CHECK(verdict_of(w, 2) == Verdict::Inconclusive);
  w.ci_low = 0.5, w.ci_high = 1.9;
  CHECK(verdict_of(w, 2) == Verdict::Contradicted);
  w.status = WelchStatus::TooFewSeeds;
  CHECK(verdict_of(w, 2) == Verdict::Inconclusive);

  // Synthetic runs: DGViT 4 points above ViT with std 1 (CI [1.73, 6.27]) supports "> 0", is inconclusive
  // for "> 2" and contradicts "> 7".
  const ExperimentResults clear = two_rows({75, 76, 77}, {79, 80, 81});
  CHECK(verdict_on(clear, cifar10_claim(0)) == Verdict::Supported);
  CHECK(verdict_on(clear, cifar10_claim(2)) == Verdict::Inconclusive);
  CHECK(verdict_on(clear, cifar10_claim(7)) == Verdict::Contradicted);
  // DGViT clearly below ViT contradicts "DGViT beats ViT"; one seed is inconclusive; no runs on a side is not tested
  // (issue 64: report --compare said inconclusive there, the board not tested).
  CHECK(verdict_on(two_rows({80, 80.5, 81}, {75, 75.5, 76}), cifar10_claim(0)) == Verdict::Contradicted);
  CHECK(verdict_on(two_rows({75}, {80}), cifar10_claim(0)) == Verdict::Inconclusive);
  CHECK(verdict_on(two_rows({75, 76}, {}), cifar10_claim(0)) == Verdict::NotTested);
  // A claim over two datasets: one contradicted comparison contradicts it.
  ExperimentResults both = two_rows({75, 76, 77}, {79, 80, 81});
  both.datasets.push_back("svhn");
  for (long long s = 0; s < 3; ++s) {
    both.runs.push_back(complete("ViT", "svhn", s, 94 + 0.1 * s));
    both.runs.push_back(complete("DGViT x4 drop x2", "svhn", s, 90 + 0.1 * s));
  }
  Claim two = cifar10_claim(0);
  two.datasets = {"cifar10", "svhn"};
  CHECK(verdict_on(both, two) == Verdict::Contradicted);
}

TEST_CASE("effect not reproduced: our CI below the paper's effect, and the power to have found it", "[report]") {
  WelchResult w;
  w.status = WelchStatus::Ok, w.ci_low = -0.5, w.ci_high = 1.9;
  CHECK(verdict_of(w, 0, 2.22) == Verdict::NotReproduced);  // the paper's +2.22 lies above our whole CI
  CHECK(verdict_of(w, 0, 1.5) == Verdict::Inconclusive);    // inside it
  CHECK(verdict_of(w, 0) == Verdict::Inconclusive);         // no paper effect to compare with
  CHECK(verdict_of(w, 2, 2.5) == Verdict::Contradicted);    // below the margin itself: the stronger verdict
  CHECK(verdict_of(w, 3, 2.5) == Verdict::Contradicted);
  w.ci_low = 0.1;
  CHECK(verdict_of(w, 0, 2.22) == Verdict::Supported);  // beyond the margin wins whatever the paper's size
  CHECK(name_of(Verdict::NotReproduced) == "effect not reproduced");

  // Power with SE 1 and df 8: no effect -> the test's own 2.5% one-sided rate; an effect of exactly the
  // critical t -> one half; a huge one -> 1; no test (n < 2) -> none.
  w.standard_error = 1, w.df = 8;
  const double critical = student_t_quantile(0.975, 8);
  CHECK(*detection_power(w, 0, 0) == Approx(0.025).margin(1e-9));
  CHECK(*detection_power(w, 2 + critical, 2) == Approx(0.5).margin(1e-9));
  CHECK(*detection_power(w, 40, 0) == Approx(1).margin(1e-9));
  CHECK(*detection_power(w, 3, 0) > *detection_power(w, 2, 0));
  w.status = WelchStatus::TooFewSeeds;
  CHECK_FALSE(detection_power(w, 3, 0).has_value());

  // End to end on the DGSA claims with the margin set to 0: DGViT 0.5 above ViT on CIFAR-10, std 0.79 over 5
  // seeds each (SE 0.5, df 8): CI [-0.65, +1.65] straddles 0 but lies below the paper's +2.16; a 96% chance
  // (by hand: 1 - T_8(2.306 - 2.16 / 0.5)) to have found the claim had +2.16 been true.
  const PaperFile file = read_paper_file(kPaper);
  const auto& tables = file.tables;
  Claim beats = file.claims[0];
  beats.margin = 0;
  const std::string text =
      claims_report(two_rows({74.5, 75, 75.5, 76, 76.5}, {75, 75.5, 76, 76.5, 77}), tables, {beats});
  CHECK_THAT(text, Contains("ours **effect not reproduced**") &&
                       Contains("| DGViT x4 drop x2 − ViT | cifar10 | +0.50 [-0.65, +1.65] | effect not reproduced | "
                                "96% | +2.16 [+1.66, +2.66] | supported |"));
  CHECK_THAT(text, Contains("*effect not reproduced*: the interval is not below the margin but lies entirely below "
                            "the paper's own Δ"));
}

TEST_CASE("the DGSA claims load, and the paper's own numbers are judged by the same rule", "[report]") {
  const PaperFile file = read_paper_file(kPaper);
  const auto& tables = file.tables;
  const auto& claims = file.claims;
  REQUIRE(claims.size() == 6);
  CHECK(claims[0].margin == 2);
  CHECK(claims[0].where.find("dgsa.yaml:") != std::string::npos);
  // Table 1, CIFAR-10: DGViT x4 drop x2 − ViT = 2.16, CI [1.66, 2.66] (mpmath): beyond 0, not beyond 2.
  const ExperimentResults none = two_rows({}, {});
  const std::string text = claims_report(none, tables, claims);
  CHECK_THAT(text, Contains("DGViT beats ViT on CIFAR-10 by more than 2 points") &&
                       Contains("ours **not tested**; the paper's own numbers (n = 5): inconclusive") &&
                       Contains("| DGViT x4 drop x2 − ViT | cifar10 | — (no runs) | not tested | — | +2.16 [+1.66, "
                                "+2.66] | inconclusive |"));
  CHECK_THAT(text, Contains("at least as good as ViT on every vision set**") &&
                       Contains("the paper's own numbers (n = 5): supported"));
  CHECK_THAT(text, !Contains("Newsgroups"));  // table2's claims are not about table1's runs
  // The paper's Table 1 rows against ViT: 10 of 12 differences significant (CIFAR-100 x2 and x4 drop x1 not),
  // Table 2 against the Transformer: 20 of 24.
  CHECK_THAT(paper_significance(tables[0]),
             Contains("10 of 12 differences have p < 0.05") && Contains("+0.12 [-0.57, +0.81], p = 0.68"));
  CHECK_THAT(paper_significance(tables[1]), Contains("20 of 24 differences"));
  CHECK(paper_significance(tables[2]).empty());  // parameter counts: no stds
}

TEST_CASE("the protocol ledger loads from the paper file and prints under the experiment's table", "[report]") {
  const auto ledger = read_paper_file(kPaper).ledger;
  REQUIRE(ledger.size() == 18);
  CHECK(ledger[3].item == "weight decay");
  CHECK(ledger[3].status == LedgerStatus::Paper);
  CHECK(ledger[14].item == "20 Newsgroups layers");
  CHECK(ledger[13].status == LedgerStatus::Differs);  // 20 Newsgroups text
  CHECK(ledger[17].status == LedgerStatus::Differs);
  const std::string text = ledger_report("table2", "paper", "table2 (profile paper)", ledger, kPaper);
  CHECK_THAT(text, Contains("### Protocol ledger of table2 (profile paper)") &&
                       Contains("8 / 7 / 3 items, from the `ledger:` of dgsa.yaml") &&
                       Contains("| pooling | not stated | mean over real tokens (`model.pool: mean`) | *open* |") &&
                       Contains("| *differs*: the hardware; the precision is open. On 20NG, seed 0 on the CPU"));
  CHECK(ledger_report("table1", "paper", "table1", ledger, kPaper).empty());  // no item is about table1
  CHECK(ledger_report("table2", "short", "table2", ledger, kPaper).empty());  // they describe the paper profile

  test::TempDir dir("ledger");
  const auto file = dir.path() / "p.yaml";
  test::write_text(file,
                   "tables:\n  - table: 1\n    experiment: table1\n    n: 5\n    cells:\n"
                   "      - {row: ViT, column: cifar10, mean: 75, std: 1}\n"
                   "ledger:\n  - {experiment: table1, item: 'a | b', paper: x, ours: y, status: paper}\n");
  CHECK_THAT(ledger_report("table1", "", "table1", read_paper_file(file).ledger, file),
             Contains("| a \\| b | x | y | *paper* |"));
}

TEST_CASE(
    "the Welch table's bold threshold is p < 0.05: bold at p = 0.04, not at p = 0.07; the paper's count "
    "says the same",
    "[report]") {
  // n = 5 a side, std 1: se = sqrt(2/5), df = 8. Δ = 1.55 gives t = 2.45, p = 0.040; Δ = 1.32 gives t = 2.09,
  // p = 0.070 (either side of 0.05, inside 0.1).
  const SampleSummary base{50.0, 1.0, 5}, near{51.55, 1.0, 5}, far{51.32, 1.0, 5};
  const double p_near = welch_test(near, base).p, p_far = welch_test(far, base).p;
  REQUIRE(p_near > 0.035);
  REQUIRE(p_near < 0.045);
  REQUIRE(p_far > 0.065);
  REQUIRE(p_far < 0.075);
  const std::string bold = difference_text(near, base, 2), plain = difference_text(far, base, 2);
  INFO(bold << "\n" << plain);
  CHECK(bold.rfind("**+1.55 [", 0) == 0);
  CHECK_THAT(bold, Contains("p = 0.04**"));
  CHECK(plain.rfind("+1.32 [", 0) == 0);
  CHECK_THAT(plain, Contains("p = 0.07") && !Contains("**"));
  // The paper's own table tested the same way: one of the two differences below 0.05, and only it in bold.
  PaperTable table;
  table.number = 9, table.experiment = "t", table.metric = Metric::TestAcc, table.n = 5;
  table.cells = {
      {"base", "cifar10", 50.0, 1.0, ""}, {"near", "cifar10", 51.55, 1.0, ""}, {"far", "cifar10", 51.32, 1.0, ""}};
  const std::string note = paper_significance(table);
  INFO(note);
  CHECK_THAT(note, Contains("1 of 2 differences have p < 0.05 (bold)"));
  CHECK_THAT(note, Contains("| near | **+1.55 [") && Contains("| far | +1.32 ["));
}
