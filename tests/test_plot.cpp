// Figures of `repro report --plots` (src/report/figures/): a PNG that
// decodes at the chart's size and changes with the data, an SVG that is
// well-formed XML with one series line per series, ticks, and the command end
// to end on the smoke run.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <vector>

#include "catch.h"
#include "fixtures.h"
#include "report/figures/figures.h"
#include "report/figures/plot.h"
#include "run_repro.h"
#include "util/files.h"
#include "util/strings.h"

#if REPRO_HAS_CAIRO
#include <cairo.h>
#endif

using namespace repro;
using repro::test::Contains;

namespace {

Chart two_series_chart(double shift) {
  Chart chart;
  chart.title = "t: fashion_mnist, accuracy";
  chart.subtitle = "mean ± 1 std over 3 seeds";
  chart.x_label = "epoch", chart.y_label = "accuracy (%)";
  chart.integer_x = true;
  chart.width = 640, chart.height = 400;
  for (int k = 0; k < 2; ++k) {
    ChartSeries s;
    s.label = k == 0 ? "ViT" : "DGViT";
    s.colour = k;
    for (int e = 1; e <= 5; ++e) {
      s.x.push_back(e);
      s.y.push_back(50 + 8 * e + 3 * k + (k == 1 ? shift : 0));
      s.std.push_back(1.5);
      s.n.push_back(3);
    }
    chart.series.push_back(s);
  }
  return chart;
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

// Elements open and close in order, attribute values quoted, no stray '<' or '&': a small checker, enough to call
// cairo's SVG well-formed here (no XML parser among the dependencies).
bool well_formed_xml(const std::string& text) {
  std::vector<std::string> open;
  size_t i = 0, elements = 0;
  while ((i = text.find('<', i)) != std::string::npos) {
    if (text.compare(i, 2, "<?") == 0 || text.compare(i, 4, "<!--") == 0) {
      const size_t close = text.find(text[i + 1] == '?' ? "?>" : "-->", i);
      if (close == std::string::npos) return false;
      i = close + 2;
      continue;
    }
    const bool closing = text.compare(i, 2, "</") == 0;
    size_t j = i + (closing ? 2 : 1);
    const size_t name_start = j;
    while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == ':' || text[j] == '-' ||
                               text[j] == '_' || text[j] == '.'))
      ++j;
    const std::string name = text.substr(name_start, j - name_start);
    if (name.empty()) return false;
    bool in_quote = false;  // attributes: skip to the '>' outside quotes
    for (; j < text.size() && (in_quote || text[j] != '>'); ++j) {
      if (text[j] == '"') in_quote = !in_quote;
      if (!in_quote && text[j] == '<') return false;
    }
    if (j >= text.size()) return false;
    const bool self_closing = text[j - 1] == '/';
    if (closing) {
      if (open.empty() || open.back() != name) return false;
      open.pop_back();
    } else if (!self_closing) {
      open.push_back(name);
    }
    ++elements;
    i = j + 1;
  }
  return open.empty() && elements > 0;
}

// An experiment's results to fill with hand-made runs.
ExperimentResults hand_made(const std::string& name, const std::string& dataset, std::vector<std::string> rows = {}) {
  ExperimentResults results;
  results.name = name;
  results.datasets = {dataset};
  results.model_configs = std::move(rows);
  return results;
}

}  // namespace

TEST_CASE("nice ticks are 1, 2 or 5 x 10^k apart and stay inside the range", "[report]") {
  CHECK((nice_ticks(0, 10, 5, false) == std::vector<double>{0, 2, 4, 6, 8, 10}));
  CHECK((nice_ticks(0.5, 3.2, 8, true) == std::vector<double>{1, 2, 3}));
  const auto small = nice_ticks(0.71, 0.79, 4, false);
  REQUIRE(small.size() >= 3);
  CHECK(small.front() >= 0.71);
  CHECK(small.back() <= 0.79);
}

#if REPRO_HAS_CAIRO

TEST_CASE("a chart's PNG decodes at its size and differs when the data differ", "[report]") {
  test::TempDir dir("plot-png");
  const auto a = dir.path() / "a.png", b = dir.path() / "b.png", same = dir.path() / "same.png";
  write_chart(two_series_chart(0), a, ChartFormat::Png);
  write_chart(two_series_chart(0), same, ChartFormat::Png);
  write_chart(two_series_chart(4), b, ChartFormat::Png);
  cairo_surface_t* image = cairo_image_surface_create_from_png(a.c_str());
  REQUIRE(cairo_surface_status(image) == CAIRO_STATUS_SUCCESS);
  CHECK(cairo_image_surface_get_width(image) == 640);
  CHECK(cairo_image_surface_get_height(image) == 400);
  // Not blank: some pixels carry the first series' colour (Okabe-Ito blue 0, 114, 178), others are white.
  cairo_surface_flush(image);
  const unsigned char* data = cairo_image_surface_get_data(image);
  const int stride = cairo_image_surface_get_stride(image);
  int blue = 0, white = 0;
  for (int y = 0; y < 400; ++y)
    for (int x = 0; x < 640; ++x) {
      const unsigned char* p = data + y * stride + 4 * x;  // B, G, R, A (little-endian ARGB32)
      blue += p[0] == 178 && p[1] == 114 && p[2] == 0;
      white += p[0] == 255 && p[1] == 255 && p[2] == 255;
    }
  cairo_surface_destroy(image);
  CHECK(blue > 100);
  CHECK(white > 640 * 400 / 2);
  CHECK(read_file(a) == read_file(same));  // deterministic
  CHECK(read_file(a) != read_file(b));
}

TEST_CASE("a chart's SVG is well-formed XML with one series line per series", "[report]") {
  test::TempDir dir("plot-svg");
  Chart chart = two_series_chart(0);
  write_chart(chart, dir.path() / "two.svg", ChartFormat::Svg);
  chart.series.push_back(chart.series[0]);
  chart.series.back().colour = 2;
  chart.series.back().label = "DiffViT";
  write_chart(chart, dir.path() / "three.svg", ChartFormat::Svg);
  const std::string two = read_file(dir.path() / "two.svg"), three = read_file(dir.path() / "three.svg");
  CHECK(two.rfind("<?xml", 0) == 0);
  CHECK(well_formed_xml(two));
  CHECK(well_formed_xml(three));
  // The series lines (kSeriesLineWidth); nothing else is 2.25 wide. cairo 1.16 writes the width in a style
  // string (stroke-width:2.25), cairo 1.18 as an attribute (stroke-width="2.25").
  const auto series_lines = [](const std::string& svg) {
    return count_of(svg, "stroke-width:2.25") + count_of(svg, "stroke-width=\"2.25\"");
  };
  CHECK(series_lines(two) == 2);
  CHECK(series_lines(three) == 3);
}

TEST_CASE("repro report --plots on the smoke run: figures, CSVs, report.md, stats", "[report]") {
  test::TempDir dir("report-plots");
  test::write_fashion_fixture(dir.path() / "data", 600, 300);
  const std::string spec = std::string(REPRO_SOURCE_DIR) + "/experiments/smoke.yaml";
  const auto runs = dir.path() / "runs";
  const test::Result run = test::run_repro("run " + spec + " data.verify=off --threads 1 --data-root " +
                                           (dir.path() / "data").string() + " --out " + runs.string());
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const test::Result report = test::run_repro("report " + (runs / "smoke").string() + " --plots --plot-format both");
  INFO(report.output);
  REQUIRE(report.exit_code == 0);
  const auto figures = runs / "smoke/figures";
  for (const char* stem : {"smoke_fashion_mnist_loss", "smoke_fashion_mnist_accuracy", "smoke_fashion_mnist_val_accuracy"})
    for (const char* ext : {".png", ".svg", ".csv"})
      CHECK(std::filesystem::exists(figures / (stem + std::string(ext))));
  const std::string md = read_file(runs / "smoke/report.md");
  CHECK_THAT(md, Contains("| vit | baseline |"));  // 2 seeds per cell: the Welch table is on by default
  CHECK_THAT(md, Contains("](figures/smoke_fashion_mnist_accuracy.png)"));
  // The CSV beside the figure: one line per (series, epoch), n = 2 seeds each, then one per run's selected epoch.
  const std::string csv = read_file(figures / "smoke_fashion_mnist_accuracy.csv");
  CHECK_THAT(csv, Contains("series,x,mean,std,n\nvit,1,") && Contains("vit-mlp4,2,") &&
                      Contains("\nvit [selected epoch (one per run)],"));
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 1 + 2 * 2 + 4);  // header + 2 rows x 2 epochs + 4 runs' marks
  const std::string val_csv = read_file(figures / "smoke_fashion_mnist_val_accuracy.csv");
  CHECK_THAT(val_csv, Contains("series,x,mean,std,n\nvit,1,") && Contains("vit-mlp4,2,"));
  CHECK(std::count(val_csv.begin(), val_csv.end(), '\n') == 1 + 2 * 2 + 4);
  // The loss chart: training loss and, dashed, validation loss (where overfitting shows first), marked there.
  const std::string loss_csv = read_file(figures / "smoke_fashion_mnist_loss.csv");
  CHECK_THAT(loss_csv, Contains("vit (train),1,") && Contains("vit (val),1,") && Contains("vit-mlp4 (val),2,") &&
                           Contains("\nvit (val) [selected epoch (one per run)],") &&
                           !Contains("(train) [selected"));
  CHECK(std::count(loss_csv.begin(), loss_csv.end(), '\n') == 1 + 2 * 2 * 2 + 4);  // 2 rows x (train, val) x 2 epochs
  const test::Result bad = test::run_repro("report " + (runs / "smoke").string() + " --plots --plot-format gif");
  CHECK(bad.exit_code != 0);
  // --against: the same folder twice pairs every run with itself (4 runs: 2 rows x 2 seeds), Δ 0.
  const test::Result twins = test::run_repro("report " + (runs / "smoke").string() + " --against " + runs.string());
  INFO(twins.output);
  CHECK(twins.exit_code == 0);
  CHECK_THAT(twins.output, Contains("| +0.00 | ") && Contains("4 pairs: 4 within seed noise, 0 outside") &&
                               Contains("| cpu, LibTorch "));
  const test::Result nowhere = test::run_repro("report " + (runs / "smoke").string() + " --against " +
                                               (dir.path() / "absent").string());
  CHECK(nowhere.exit_code != 0);
  CHECK_THAT(nowhere.output, Contains("--against") && Contains("no such folder"));
  // Its pairs are a markdown table: never appended to CSV output (issue 49).
  const test::Result csv_against =
      test::run_repro("report " + (runs / "smoke").string() + " --format csv --against " + runs.string());
  CHECK(csv_against.exit_code == 2);
  CHECK_THAT(csv_against.output, Contains("--against") && Contains("use it with --format md") && !Contains("| +0.00"));
}

#else

TEST_CASE("without cairo, --plots fails naming REPRO_WITH_CAIRO", "[report]") {
  test::TempDir dir("plot-none");
  CHECK_THROWS_WITH(write_chart(Chart{}, dir.path() / "a.png", ChartFormat::Png), Contains("REPRO_WITH_CAIRO"));
}

#endif

TEST_CASE("learning charts mark each run's selected epoch with its own values; hand-made records", "[report]") {
  test::TempDir dir("plot-marks");
  ExperimentResults results = hand_made("marks", "rotten_tomatoes", {"A"});
  // Two seeds of row A, three epochs each; seed 0 selected epoch 2, seed 1 epoch 3.
  const std::vector<std::string> histories = {
      "1,10,0.001,0.9,50,0.80,60,0.85,58,1\n2,20,0.001,0.5,70,0.60,72,0.65,71,1\n3,30,0.001,0.2,90,0.90,70,0.95,69,1\n",
      "1,10,0.001,0.8,55,0.70,62,0.75,61,1\n2,20,0.001,0.4,75,0.65,66,0.70,64,1\n3,30,0.001,0.1,95,0.66,74,0.72,73,1\n"};
  const std::vector<int64_t> selected = {2, 3};
  for (size_t k = 0; k < histories.size(); ++k) {
    const auto run_dir = dir.path() / ("seed_" + std::to_string(k));
    std::filesystem::create_directories(run_dir);
    test::write_text(run_dir / "metrics.csv",
                     "epoch,step,lr,train_loss,train_acc,val_loss,val_acc,test_loss,test_acc,seconds\n" + histories[k]);
    RunResult run;
    run.model_config = "A", run.dataset = "rotten_tomatoes", run.state = RunState::Complete;
    run.seed = static_cast<long long>(k), run.path = run_dir.string(), run.selected_epoch = selected[k];
    results.runs.push_back(run);
  }
  const auto charts = learning_charts(results);
  REQUIRE(charts.size() == 3);
  CHECK(charts[0].name == "marks_rotten_tomatoes_loss");
  CHECK(charts[1].name == "marks_rotten_tomatoes_accuracy");
  CHECK(charts[2].name == "marks_rotten_tomatoes_val_accuracy");
  using Marks = std::vector<std::pair<double, double>>;
  const auto& loss = charts[0].chart.series;
  REQUIRE(loss.size() == 2);
  CHECK(loss[0].marks.empty());                              // training loss: not marked
  CHECK((loss[1].marks == Marks{{2, 0.60}, {3, 0.66}}));     // validation loss at each run's selected epoch
  REQUIRE(charts[1].chart.series.size() == 1);
  CHECK((charts[1].chart.series[0].marks == Marks{{2, 71}, {3, 73}}));  // test accuracy there
  CHECK((charts[1].chart.series[0].y == std::vector<double>{59.5, 67.5, 71}));  // the means are unchanged
  CHECK((charts[2].chart.series[0].marks == Marks{{2, 72}, {3, 74}}));  // validation accuracy there
  CHECK_THAT(charts[1].chart.subtitle, Contains("open diamonds: each run's selected epoch"));
  CHECK_THAT(chart_csv(charts[1].chart), Contains("A [selected epoch (one per run)],2,71,,1\n") &&
                                             Contains("A [selected epoch (one per run)],3,73,,1\n"));
  // A run whose record names no selected epoch gets no mark.
  results.runs[1].selected_epoch = 0;
  CHECK((learning_charts(results)[1].chart.series[0].marks == Marks{{2, 71}}));
#if REPRO_HAS_CAIRO
  // Drawn: the marks change the picture.
  Chart unmarked = charts[1].chart;
  unmarked.series[0].marks.clear();
  write_chart(charts[1].chart, dir.path() / "marked.png", ChartFormat::Png);
  write_chart(unmarked, dir.path() / "unmarked.png", ChartFormat::Png);
  CHECK(read_file(dir.path() / "marked.png") != read_file(dir.path() / "unmarked.png"));
#endif
}

TEST_CASE("learning charts: more rows than colours split by sweep values, then in parts", "[report]") {
  test::TempDir dir("plot-groups");
  // Seven rows under the paper's rule and two under the other reading (table2/weight_decay's shape), one run each.
  const auto results_of = [&](int paper_rows, int other_rows, bool swept) {
    ExperimentResults results = hand_made("wd", "rotten_tomatoes");
    const auto add = [&](const std::string& row, const std::string& reading) {
      RunResult run;
      run.row = row, run.dataset = "rotten_tomatoes", run.state = RunState::Complete;
      if (swept) run.sweep = {{"no_decay", reading}};
      run.model_config = RunId::compose_model_config(row, run.sweep);
      const auto run_dir = dir.path() / safe_name(run.model_config);
      std::filesystem::create_directories(run_dir);
      test::write_text(run_dir / "metrics.csv", "epoch,step,lr,train_loss,train_acc,val_loss,val_acc,test_loss,"
                                                "test_acc,seconds\n1,10,0.001,0.9,50,0.8,60,0.85,58,1\n");
      run.path = run_dir.string();
      results.model_configs.push_back(run.model_config), results.runs.push_back(run);
    };
    for (int r = 0; r < paper_rows; ++r) add("R" + std::to_string(r), "paper");
    for (int r = 0; r < other_rows; ++r) add("V" + std::to_string(r), "vectors_embeddings");
    return results;
  };
  const auto names = [](const std::vector<NamedChart>& charts) {
    std::vector<std::string> out;
    for (const auto& chart : charts) out.push_back(chart.name);
    return out;
  };
  // Eight rows fit one palette: one set, named as always, whatever their sweep values.
  CHECK((names(learning_charts(results_of(6, 2, true))) ==
         std::vector<std::string>{"wd_rotten_tomatoes_loss", "wd_rotten_tomatoes_accuracy",
                                  "wd_rotten_tomatoes_val_accuracy"}));
  // Nine: one set per reading, each with its own rows only, the reading in its title.
  const auto split = learning_charts(results_of(7, 2, true));
  REQUIRE(split.size() == 6);
  CHECK(split[1].name == "wd_rotten_tomatoes_accuracy_no_decay_paper");
  CHECK(split[1].chart.title == "wd: rotten_tomatoes, test accuracy (no_decay=paper)");
  CHECK(split[1].chart.series.size() == 7);
  CHECK(split[4].name == "wd_rotten_tomatoes_accuracy_no_decay_vectors_embeddings");
  REQUIRE(split[4].chart.series.size() == 2);
  CHECK(split[4].chart.series[0].label == "V0+no_decay=vectors_embeddings");
  // Nine rows without sweep values: consecutive parts of at most eight.
  const auto parts = learning_charts(results_of(9, 0, false));
  REQUIRE(parts.size() == 6);
  CHECK(parts[1].name == "wd_rotten_tomatoes_accuracy_part1");
  CHECK(parts[1].chart.series.size() == 8);
  CHECK(parts[4].chart.title == "wd: rotten_tomatoes, test accuracy (2/2)");
  CHECK(parts[4].chart.series.size() == 1);
}

TEST_CASE("robustness charts: one curve per model, the clean run at level 0; test-noise rows not in learning curves",
          "[report]") {
  test::TempDir dir("plot-robustness");
  ExperimentResults results = hand_made("robustness", "fashion_mnist");
  struct Row {
    std::string name, split;
    double level;
    int dim;
    double accuracy;
  };
  const std::vector<Row> rows = {{"A clean", "none", 0.1, 32, 80},
                                 {"A test gaussian 0.1", "test", 0.1, 32, 70},
                                 {"A test gaussian 0.2", "test", 0.2, 32, 50},
                                 {"B clean", "none", 0.1, 64, 82},
                                 {"B test gaussian 0.1", "test", 0.1, 64, 75}};
  for (const auto& row : rows) {
    const auto run_dir = dir.path() / row.name;
    std::filesystem::create_directories(run_dir);
    test::write_text(run_dir / "spec.resolved.yaml",
                     "experiment: robustness\ndataset: fashion_mnist\ndata:\n  val_fraction: 0.1\n  noise:\n    kind: gaussian\n    level: " + std::to_string(row.level) +
                         "\n    split: " + row.split + "\nmodel:\n  dim: " + std::to_string(row.dim) + "\n");
    test::write_text(run_dir / "metrics.csv",
                     "epoch,step,lr,train_loss,train_acc,val_loss,val_acc,test_loss,test_acc,seconds\n"
                     "1,10,0.001,1.5,40,,,1.2," +
                         std::to_string(row.accuracy) + ",1.0\n");
    RunResult run;
    run.model_config = row.name, run.dataset = "fashion_mnist", run.state = RunState::Complete;
    run.value = row.accuracy, run.path = run_dir.string();
    results.model_configs.push_back(row.name);
    results.runs.push_back(run);
  }
  const auto charts = robustness_charts(results);
  REQUIRE(charts.size() == 1);
  CHECK(charts[0].name == "robustness_fashion_mnist_robustness_test_gaussian");
  const auto& series = charts[0].chart.series;
  REQUIRE(series.size() == 2);
  CHECK(series[0].label == "A clean");
  CHECK((series[0].x == std::vector<double>{0, 0.1, 0.2}));
  CHECK((series[0].y == std::vector<double>{80, 70, 50}));
  CHECK(series[1].label == "B clean");
  CHECK((series[1].y == std::vector<double>{82, 75}));
  CHECK(series[0].spread == SpreadStyle::ErrorBars);
  // The learning curves show the two clean rows only: the test-noise rows train exactly like them.
  const auto learning = learning_charts(results);
  REQUIRE(learning.size() == 2);
  REQUIRE(learning[1].chart.series.size() == 2);
  CHECK(learning[1].chart.series[1].label == "B clean");  // test accuracy; no validation chart without val_acc
  CHECK_THAT(chart_csv(charts[0].chart), Contains("A clean,0.2,50,,1\n"));
}

TEST_CASE("robustness charts from repro eval --levels: accuracy against the level per row, over seeds", "[report]") {
  test::TempDir dir("plot-eval");
  ExperimentResults results = hand_made("table1", "fashion_mnist", {"ViT"});
  for (long long seed = 0; seed < 2; ++seed) {
    const auto run_dir = dir.path() / ("seed_" + std::to_string(seed));
    std::filesystem::create_directories(run_dir / "eval");
    std::string points;
    for (const char* level : {"0", "0.1"}) {
      const double acc = (std::string(level) == "0" ? 80.0 : 60.0) + 2.0 * seed;  // seeds 80, 82 | 60, 62
      points += std::string(points.empty() ? "" : ",") + "{\"label\": \"gaussian " + level +
                "\", \"overrides\": {\"data.noise.kind\": \"gaussian\", " + "\"data.noise.level\": \"" + level +
                "\"}, \"acc\": " + std::to_string(acc) + ", \"loss\": 1}";
    }
    test::write_text(
        run_dir / "eval/noise.json",
        "{\"levels\": {\"key\": \"data.noise.level\", \"values\": [\"0\", \"0.1\"]}, \"points\": [" + points + "]}");
    RunResult run;
    run.model_config = "ViT", run.dataset = "fashion_mnist", run.state = RunState::Complete, run.seed = seed;
    run.path = run_dir.string();
    results.runs.push_back(run);
  }
  const auto charts = eval_robustness_charts(results);
  REQUIRE(charts.size() == 1);
  CHECK(charts[0].name == "table1_fashion_mnist_eval_noise");
  CHECK(charts[0].chart.x_label == "data.noise.level (gaussian)");
  REQUIRE(charts[0].chart.series.size() == 1);
  const auto& s = charts[0].chart.series[0];
  CHECK((s.x == std::vector<double>{0, 0.1}));
  CHECK((s.y == std::vector<double>{81, 61}));
  CHECK(s.std[0] == Approx(1.4142135624));
  CHECK((s.n == std::vector<int>{2, 2}));
}
