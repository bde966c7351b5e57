// repro report --select: a sweep's axes collapsed per model row on a validation metric (report/tables/select.h), the
// choices listed, the Welch table comparing models; and the sweep-axis figure. In memory against hand-made
// results, then end to end on a tiny real sweep.
#include <cmath>
#include <filesystem>

#include "catch.h"
#include "fixtures.h"
#include "record/plan_record.h"
#include "report/figures/figures.h"
#include "report/tables/select.h"
#include "report/tables/stats.h"
#include "report/tables/table.h"
#include "run_repro.h"
#include "util/error.h"
#include "util/files.h"

using namespace repro;
using repro::test::Contains;
namespace fs = std::filesystem;

namespace {

RunResult run(const std::string& row, const std::string& lr, long long seed, double value, int row_index) {
  RunResult r;
  r.row = row;
  r.sweep = {{"lr", lr}};
  r.model_config = row + "+lr=" + lr;
  r.dataset = "d";
  r.seed = seed;
  r.state = RunState::Complete;
  r.value = value;
  r.row_index = row_index;
  return r;
}

// Rows a (lr 0.1, 0.2) and b (lr 0.1, 0.2), seeds 0 and 1; `val` and `test` hold the two metrics.
struct Sweep {
  ExperimentResults val, test;
  Sweep() {
    val.name = test.name = "t";
    val.metric = Metric::ValAcc, test.metric = Metric::TestAcc;
    // a: lr 0.2 has the better mean val (71 vs 70.5), but seed 0 prefers 0.1 (72 > 70).
    val.runs = {run("a", "0.1", 0, 72, 0), run("a", "0.1", 1, 69, 0), run("a", "0.2", 0, 70, 1),
                run("a", "0.2", 1, 72, 1), run("b", "0.1", 0, 80, 2), run("b", "0.1", 1, 80, 2),
                run("b", "0.2", 0, 60, 3), run("b", "0.2", 1, 61, 3)};
    test.runs = {run("a", "0.1", 0, 10, 0), run("a", "0.1", 1, 11, 0), run("a", "0.2", 0, 20, 1),
                 run("a", "0.2", 1, 22, 1), run("b", "0.1", 0, 30, 2), run("b", "0.1", 1, 34, 2),
                 run("b", "0.2", 0, 99, 3), run("b", "0.2", 1, 99, 3)};  // b's best test is never chosen
    for (auto* r : {&val, &test})
      for (const auto& x : r->runs) {
        if (std::find(r->model_configs.begin(), r->model_configs.end(), x.model_config) == r->model_configs.end())
          r->model_configs.push_back(x.model_config);
      }
    val.datasets = test.datasets = {"d"};
  }
};

std::vector<double> cell_values(const ExperimentResults& r, const std::string& row) {
  std::vector<double> out;
  for (const auto& x : r.runs)
    if (x.model_config == row && is_counted(x)) out.push_back(x.value);
  return out;
}

}  // namespace

TEST_CASE("--select says when the chosen value is the smallest or largest of its axis", "[report]") {
  // Issue 48: lr 3e-3, the largest tried, was chosen for every row and nothing said the best may lie beyond.
  ExperimentResults val;
  val.name = "t", val.metric = Metric::ValAcc, val.datasets = {"d"};
  // row a peaks inside (lr 0.01 of 0.001, 0.01, 0.1); row b at the largest lr
  val.runs = {run("a", "0.001", 0, 60, 0), run("a", "0.01", 0, 70, 0), run("a", "0.1", 0, 65, 0),
              run("b", "0.001", 0, 50, 1), run("b", "0.01", 0, 55, 1), run("b", "0.1", 0, 58, 1)};
  for (const auto& x : val.runs) val.model_configs.push_back(x.model_config);
  SelectOptions options;
  options.axes = {"lr"};
  const Selection sel = select_axes(val, val, options);
  REQUIRE(sel.choices.size() == 2);
  CHECK(sel.choices[0].at_edge.empty());
  CHECK(sel.choices[1].at_edge == std::vector<std::string>{"lr=0.1, the largest of 0.001, 0.01, 0.1"});
  CHECK_THAT(sel.results.selection_note, Contains("Chosen at the edge of the values tried"));
  CHECK_THAT(sel.results.selection_note, Contains("- b on d: lr=0.1, the largest of 0.001, 0.01, 0.1"));
  CHECK_THAT(sel.results.selection_note, !Contains("- a on d:"));
  options.on = SelectOn::Seed;  // per seed too, naming the seed
  CHECK_THAT(select_axes(val, val, options).results.selection_note, Contains("- b on d, seed 0: lr=0.1, the largest"));
}

TEST_CASE("--select on the seed mean: one value per row, chosen on validation, the test metric there", "[report]") {
  Sweep s;
  SelectOptions options;
  options.axes = {"train.lr"};  // the key or its label
  const Selection sel = select_axes(s.test, s.val, options);
  CHECK(sel.results.model_configs == std::vector<std::string>{"a", "b"});
  CHECK(cell_values(sel.results, "a") == std::vector<double>{20, 22});  // lr 0.2: mean val 71 > 70.5
  CHECK(cell_values(sel.results, "b") == std::vector<double>{30, 34});  // lr 0.1, not b's best test (99)
  REQUIRE(sel.choices.size() == 2);
  CHECK(sel.choices[0].values == "lr=0.2");
  CHECK(sel.choices[0].by_value == Approx(71));
  CHECK(sel.choices[0].candidates == 2);
  CHECK_THAT(sel.results.selection_note, Contains("| a | d | lr=0.2 | 71.00 | 2 | 2 of 2 |"));
  CHECK_THAT(sel.results.selection_note, Contains("| b | d | lr=0.1 | 80.00 | 2 | 2 of 2 |"));
  for (const auto& r : sel.results.runs) CHECK(r.sweep.empty());  // the selected axis is gone from the rows

  // A loss: the lowest is best (b's lr 0.2 has the lower "val").
  options.by = Metric::ValLoss;
  const Selection by_loss = select_axes(s.test, s.val, options);
  CHECK(cell_values(by_loss.results, "b") == std::vector<double>{99, 99});
  CHECK(cell_values(by_loss.results, "a") == std::vector<double>{10, 11});  // mean 70.5 < 71
}

TEST_CASE("--select-on seed: each seed's own best value", "[report]") {
  Sweep s;
  SelectOptions options;
  options.axes = {"lr"};
  options.on = SelectOn::Seed;
  const Selection sel = select_axes(s.test, s.val, options);
  CHECK(cell_values(sel.results, "a") == std::vector<double>{10, 22});  // seed 0: lr 0.1 (72); seed 1: lr 0.2 (72)
  REQUIRE(sel.choices.size() == 4);
  CHECK(sel.choices[0].seed == 0);
  CHECK(sel.choices[0].values == "lr=0.1");
  CHECK(sel.choices[1].values == "lr=0.2");
  CHECK_THAT(sel.results.selection_note, Contains("| a | d | 1 | lr=0.2 | 72.00 | 1 | 2 of 2 |"));
}

TEST_CASE("--select: a tie goes to the first value; a row without the metric says so; bad axes and metrics named",
          "[report]") {
  Sweep s;
  for (auto& r : s.val.runs) r.value = 50;  // every candidate ties
  SelectOptions options;
  options.axes = {"lr"};
  CHECK(cell_values(select_axes(s.test, s.val, options).results, "a") == std::vector<double>{10, 11});

  for (auto& r : s.val.runs) r.gap = MetricGap::NoMetric;  // no validation split
  const Selection none = select_axes(s.test, s.val, options);
  CHECK(cell_values(none.results, "a").empty());
  CHECK(none.results.runs.front().gap == MetricGap::NoMetric);
  CHECK_THAT(none.results.selection_note, Contains("| a | d | none (no val_acc) | – | 0 | 0 of 2 |"));
  // Issue 34, point 8: the cell names the metric it lacks to select on, not the reported one it may have.
  CHECK(none.results.runs.front().missing == "val_acc to select on");
  CHECK_THAT(render_markdown(none.results), Contains("(2 no val_acc to select on)") &&
                                                            !Contains("no test_acc"));

  options.axes = {"model.ffn.ratio"};
  CHECK_THROWS_WITH(select_axes(s.test, s.val, options),
                    Contains("--select model.ffn.ratio: not a sweep axis of experiment 't' (its axes: lr)"));
  ExperimentResults flat = s.test;
  for (auto& r : flat.runs) r.sweep.clear();
  options.axes = {"lr"};
  CHECK_THROWS_WITH(select_axes(flat, s.val, options), Contains("has no sweep axes in its plan.json"));
  options.by = Metric::TestAcc;
  CHECK_THROWS_WITH(select_axes(s.test, s.val, options), Contains("--by test_acc: choosing on the test set biases"));
  CHECK_THROWS_WITH(select_metric("accuracy"), Contains("--by: got 'accuracy', expected one of val_acc"));
}

// Issue 34, point 4: a corrupt record of a losing candidate was dropped silently, and the candidate judged on 1 of
// its 2 seeds. Listed as the plain report lists it, and the candidate's n said.
TEST_CASE("--select lists the bad records of candidates not chosen and says on how many seeds each was judged",
          "[report]") {
  Sweep s;
  for (auto* r : {&s.val, &s.test})
    for (auto& x : r->runs)
      if (x.row == "b" && x.sweep[0].second == "0.2" && x.seed == 1) {  // b lr=0.2 loses; its seed 1 is corrupt
        x.state = RunState::Corrupt;
        x.problem = "b/seed_1/summary.json: not valid JSON";
      }
  SelectOptions options;
  options.axes = {"lr"};
  const Selection sel = select_axes(s.test, s.val, options);
  CHECK(cell_values(sel.results, "b") == std::vector<double>{30, 34});  // the winner is unchanged
  CHECK_THAT(sel.results.selection_note, Contains("| b | d | lr=0.1 | 80.00 | 2 | 2 of 2 |"));
  CHECK_THAT(sel.results.selection_note, Contains("Candidates judged on fewer seeds than they have") &&
                                             Contains("- b on d, lr=0.2: 1 of 2 seeds"));
  CHECK_THAT(sel.results.selection_note, Contains("Records of candidates not chosen, not counted:\n- corrupt: "
                                                  "b/seed_1/summary.json: not valid JSON"));
  options.on = SelectOn::Seed;
  const Selection per_seed = select_axes(s.test, s.val, options);
  CHECK_THAT(per_seed.results.selection_note, Contains("- corrupt: b/seed_1/summary.json: not valid JSON"));
}

TEST_CASE("--select beside a row without the axis: that row kept as it is, listed as not swept", "[report]") {
  // The bag of words' weight decays beside the Transformer, which has one configuration (issue 46).
  Sweep s;
  for (auto* r : {&s.val, &s.test}) {
    RunResult plain = run("t", "", 0, r == &s.val ? 90 : 40, 4);
    plain.sweep.clear();
    plain.model_config = "t";
    r->runs.push_back(plain);
    plain.seed = 1;
    r->runs.push_back(plain);
    r->model_configs.push_back("t");
  }
  SelectOptions options;
  options.axes = {"lr"};
  const Selection sel = select_axes(s.test, s.val, options);
  CHECK(cell_values(sel.results, "t") == std::vector<double>{40, 40});
  CHECK_THAT(sel.results.selection_note, Contains("| t | d | — (not swept) | 90.00 | 2 | 1 of 1 |"));
  CHECK_THAT(sel.results.selection_note, Contains("| a | d | lr=0.2 |"));
}

TEST_CASE("the sweep-axis chart: one line per row, mean ± std at each value, the values as tick labels", "[report]") {
  Sweep s;
  const auto charts = sweep_charts(s.test);
  REQUIRE(charts.size() == 1);
  const Chart& chart = charts[0].chart;
  CHECK(charts[0].name == "t_d_sweep_lr");
  REQUIRE(chart.series.size() == 2);
  CHECK(chart.series[0].label == "a");
  CHECK(chart.series[0].y == std::vector<double>{10.5, 21});
  CHECK(chart.series[0].std[1] == Approx(std::sqrt(2.0)));
  CHECK(chart.x_tick_labels == std::vector<std::pair<double, std::string>>{{0, "0.1"}, {1, "0.2"}});
  CHECK(chart.y_label == "test accuracy (%)");  // the metric's label and unit, not its key (issue 48)
}

namespace {

// Two rows (vanilla, diff) × lr {0.003, 0.01} × seeds {0, 1} on 96 fixture images.
const char* kSweepSpec = R"(experiment: lrsweep
datasets: [fashion_mnist]
seeds: [0, 1]
model: {dim: 16, depth: 1, heads: 2, patch: 7, ffn: {ratio: 2}}
models:
  - {name: vanilla, model: {attention: {kind: vanilla}}}
  - {name: diff, model: {attention: {kind: diff}}}
sweep: {train.lr: [0.003, 0.01]}
data: {val_fraction: 0.25, verify: off}
train: {epochs: 2, batch_size: 16, log_every: 0}
)";

}  // namespace

TEST_CASE("report --select end to end: a real lr sweep collapsed per row, the Welch table over rows, the axis figure",
          "[cli]") {
  test::TempDir dir("select-e2e");
  test::write_fashion_fixture(dir.path() / "data", 96, 32);
  test::write_text(dir.path() / "sweep.yaml", kSweepSpec);
  const fs::path out = dir.path() / "runs";
  const auto trained = test::run_repro("run " + (dir.path() / "sweep.yaml").string() + " --data-root " +
                                       (dir.path() / "data").string() + " --out " + out.string() + " --threads 1");
  INFO(trained.output);
  REQUIRE(trained.exit_code == 0);

  const auto report = test::run_repro("report " + out.string() + " --select train.lr --stats --plots -o " +
                                      (dir.path() / "report.md").string());
  INFO(report.output);
  REQUIRE(report.exit_code == 0);
  const std::string md = read_file(dir.path() / "report.md");
  CHECK_THAT(md, Contains("| model | fashion_mnist |"));
  CHECK_THAT(md, Contains("| vanilla |"));
  CHECK_THAT(md, Contains("| diff |"));
  CHECK_THAT(md, Contains("Selected on val_acc (the best mean over seeds) among the train.lr values"));
  CHECK_THAT(md, !Contains("| vanilla+lr="));  // no learning-rate rows left in the table
  CHECK_THAT(md, Contains("each row − vanilla (Welch)"));  // the Welch table compares the rows, not lrs
  CHECK(fs::exists(dir.path() / "figures/lrsweep_fashion_mnist_sweep_lr.png"));
  CHECK_THAT(md, Contains("figures/lrsweep_fashion_mnist_sweep_lr.png"));
  const std::string axis_csv = read_file(dir.path() / "figures/lrsweep_fashion_mnist_sweep_lr.csv");
  CHECK_THAT(axis_csv, Contains("vanilla,0,"));
  CHECK_THAT(axis_csv, Contains("diff,1,"));

  // The selected cell is the chosen configuration's test accuracies: check against the unselected CSV.
  const auto csv = test::run_repro("report " + out.string() + " --format csv");
  const auto val = test::run_repro("report " + out.string() + " --format csv --metric val_acc");
  const auto selected = test::run_repro("report " + out.string() + " --format csv --select lr");
  REQUIRE(selected.exit_code == 0);
  INFO(csv.output << val.output << selected.output);
  for (const std::string row : {"vanilla", "diff"}) {
    // val means of the two candidates, and the test cell of the better one.
    const auto field = [](const std::string& text, const std::string& config, int column) {
      const auto at = text.find("lrsweep," + config + ",fashion_mnist,");
      REQUIRE(at != std::string::npos);
      std::string line = text.substr(at, text.find('\n', at) - at);
      for (int i = 0; i < column; ++i) line = line.substr(line.find(',') + 1);
      return line.substr(0, line.find(','));
    };
    const double val_low = std::stod(field(val.output, row + "+lr=0.003", 5));
    const double val_high = std::stod(field(val.output, row + "+lr=0.01", 5));
    const std::string chosen = val_high > val_low ? row + "+lr=0.01" : row + "+lr=0.003";
    CHECK(field(selected.output, row, 5) == field(csv.output, chosen, 5));
  }

  // A key that is not an axis: one line, exit 2, nothing written.
  const auto bad = test::run_repro("report " + out.string() + " --select model.dim");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Contains("--select model.dim: not a sweep axis of experiment 'lrsweep' (its axes: lr)"));

  // Without plan.json (runs collected from elsewhere, or a plan lost) the records name their row and sweep values
  // themselves (0.7.1): the same selection and the same axis figure.
  fs::remove(out / "lrsweep/plan.json");
  const auto unplanned = test::run_repro("report " + out.string() + " --format csv --select lr");
  INFO(unplanned.output);
  REQUIRE(unplanned.exit_code == 0);
  CHECK(unplanned.output == selected.output);
  const auto unplanned_plots =
      test::run_repro("report " + out.string() + " --plots -o " + (dir.path() / "unplanned/report.md").string());
  REQUIRE(unplanned_plots.exit_code == 0);
  CHECK(read_file(dir.path() / "unplanned/figures/lrsweep_fashion_mnist_sweep_lr.csv") == axis_csv);
}

TEST_CASE("a sweep beside the plain rows: compared at the same sweep values, the plain-equal value not retrained",
          "[cli]") {
  // Issue 49: `--set train.lr=…` written into a folder that holds the plain rows compared every swept row with the
  // plain baseline, listed the value equal to the plain setting twice and trained it again.
  test::TempDir dir("select-beside-plain");
  test::write_fashion_fixture(dir.path() / "data", 96, 32);
  std::string spec = kSweepSpec;
  const std::string axis = "sweep: {train.lr: [0.003, 0.01]}\n", last = "log_every: 0}";
  spec.replace(spec.find(axis), axis.size(), "report: {baseline: vanilla}\n");
  spec.replace(spec.find(last), last.size(), "log_every: 0, lr: 0.003}");  // the plain rows' lr
  test::write_text(dir.path() / "plain.yaml", spec);
  const fs::path out = dir.path() / "runs";
  const std::string common = (dir.path() / "plain.yaml").string() + " --data-root " + (dir.path() / "data").string() +
                             " --out " + out.string() + " --threads 1";
  const auto plain = test::run_repro("run " + common);
  INFO(plain.output);
  REQUIRE(plain.exit_code == 0);
  const std::string plain_metrics = read_file(out / "lrsweep/fashion_mnist/vanilla/seed_0/metrics.csv");
  const auto swept = test::run_repro("sweep " + common + " --set train.lr=0.003,0.01");
  INFO(swept.output);
  REQUIRE(swept.exit_code == 0);
  // lr 0.003 is the plain runs' setting: those runs stand for it, untouched, and only lr 0.01 trains.
  CHECK_THAT(swept.output, Contains("vanilla+lr=0.003: its settings are those of the run in"));
  CHECK_THAT(swept.output, Contains("4 of 8 runs were already finished"));
  CHECK_FALSE(fs::exists(out / "lrsweep/fashion_mnist/vanilla+lr=0.003"));
  CHECK(read_file(out / "lrsweep/fashion_mnist/vanilla/seed_0/metrics.csv") == plain_metrics);
  const PlanRecord plan = read_plan_record(out / "lrsweep/plan.json");
  CHECK(plan.runs.size() == 8);  // 2 rows x 2 values x 2 seeds: the plain runs listed once, at lr 0.003

  const auto report = test::run_repro("report " + out.string() + " --stats");
  INFO(report.output);
  REQUIRE(report.exit_code == 0);
  // One row per configuration, grouped by spec row; each compared with vanilla at the same sweep values.
  CHECK(test::count_of(report.output, "| vanilla+lr=0.003 |") == 2);  // the table and the Welch table
  CHECK_THAT(report.output, !Contains("| vanilla |"));
  CHECK_THAT(report.output, Contains("each row − vanilla at the same sweep values (Welch)"));
  const auto welch_row = [&](const std::string& row) {
    const std::string text = report.output.substr(report.output.find("(Welch)"));
    const auto at = text.find("| " + row + " |");
    REQUIRE(at != std::string::npos);
    return text.substr(at, text.find('\n', at) - at);
  };
  CHECK_THAT(welch_row("vanilla+lr=0.01"), Contains("baseline"));
  CHECK_THAT(welch_row("diff+lr=0.003"), !Contains("baseline"));
  const auto select = test::run_repro("report " + out.string() + " --select train.lr");
  INFO(select.output);
  // 2 candidates per row (lr 0.003 and 0.01), not 3 (the plain runs are lr 0.003's, not a third candidate)
  CHECK(test::count_of(select.output, " | 2 | 2 of 2 |") == 2);
  CHECK_THAT(select.output, Contains("the largest of 0.003, 0.01") || Contains("the smallest of 0.003, 0.01"));
}

TEST_CASE("a plain record written before a key existed stands only for a run at the value it ran with", "[cli]") {
  // Issue 66: a spec.resolved.yaml without train.no_decay (repro before 0.3) ran as vectors_embeddings; read as the
  // key's default (paper), such a record stood for a `--set train.no_decay=paper` run of its row and seed.
  test::TempDir dir("select-before-key");
  test::write_fashion_fixture(dir.path() / "data", 96, 32);
  std::string spec = kSweepSpec;
  const std::string axis = "sweep: {train.lr: [0.003, 0.01]}\n";
  spec.replace(spec.find(axis), axis.size(), "");
  spec.replace(spec.find("seeds: [0, 1]"), 13, "seeds: [0]");
  test::write_text(dir.path() / "plain.yaml", spec);
  const fs::path out = dir.path() / "runs";
  const std::string common = (dir.path() / "plain.yaml").string() + " --data-root " + (dir.path() / "data").string() +
                             " --out " + out.string() + " --threads 1";
  REQUIRE(test::run_repro("run " + common).exit_code == 0);
  const fs::path old_spec = out / "lrsweep/fashion_mnist/vanilla/seed_0/spec.resolved.yaml";
  std::string text = read_file(old_spec);
  const std::string line = "  no_decay: paper\n";
  REQUIRE(text.find(line) != std::string::npos);
  text.erase(text.find(line), line.size());  // as written before the key existed
  test::write_text(old_spec, text);
  const auto swept = test::run_repro("sweep " + common + " --set train.no_decay=paper");
  INFO(swept.output);
  REQUIRE(swept.exit_code == 0);
  CHECK_THAT(swept.output, Contains("diff+no_decay=paper: its settings are those of the run in"));
  CHECK_THAT(swept.output, !Contains("vanilla+no_decay=paper: its settings are those of the run in"));
  CHECK(fs::exists(out / "lrsweep/fashion_mnist/vanilla+no_decay=paper/seed_0/summary.json"));  // trained
  CHECK_FALSE(fs::exists(out / "lrsweep/fashion_mnist/diff+no_decay=paper"));
}
