// The claims board (issue 46, item 0): `repro report RESULTS --board PAPER` judges every claim of the paper file on
// every results folder below RESULTS, one verdict per claim, and writes Markdown and one self-contained HTML page
// (tests/test_board_page.cpp; its --into files: tests/test_board_into.cpp). Built on the committed results/ (read
// only) and on copies of them changed in a temporary folder.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "catch.h"
#include "fixtures.h"
#include "report/board/board.h"
#include "report/claims/claims.h"
#include "report/claims/paper.h"
#include "report/claims/paper_file.h"
#include "report/figures/figures.h"
#include "report/figures/palette.h"
#include "report/figures/plot.h"
#include "report/records/collect.h"
#include "run_repro.h"
#include "train/history.h"
#include "util/error.h"
#include "util/files.h"

using namespace repro;
using repro::test::Contains;
namespace fs = std::filesystem;

namespace {

const fs::path kSource = REPRO_SOURCE_DIR;
const fs::path kPaper = kSource / "experiments/paper/dgsa.yaml";
const fs::path kResults = kSource / "results";

const BoardCell& cell_of(const BoardTable& table, const std::string& row, const std::string& column) {
  const auto cell = std::find_if(table.cells.begin(), table.cells.end(),
                                 [&](const BoardCell& c) { return c.paper->row == row && c.paper->column == column; });
  REQUIRE(cell != table.cells.end());
  return *cell;
}

// A copy of the committed results folder `name` (e.g. "table2/paper") below `root`, plan.json and records.
void copy_results(const std::string& name, const fs::path& root) {
  fs::create_directories((root / name).parent_path());
  fs::copy(kResults / name, root / name, fs::copy_options::recursive);
}

// Moves a run's selected epoch to `epoch`, its summary.json's "selected", "selection" and "model_file" consistent
// with its metrics.csv: the record of a run whose validation peaked there.
void select_epoch(const fs::path& run, int64_t epoch) {
  const auto rows = parse_metrics_csv(read_file(run / "metrics.csv"), run / "metrics.csv");
  const EpochRow& row = rows.at(epoch - 1);
  auto summary = nlohmann::json::parse(read_file(run / "summary.json"));
  for (const auto& name : metric_names()) summary["selected"][name] = metric_value(row, name);
  summary["selected"]["epoch"] = epoch;
  summary["selection"]["epoch"] = epoch;
  if (summary.contains("model_file") && summary["model_file"].is_object()) summary["model_file"]["epoch"] = epoch;
  write_file_atomic(run / "summary.json", summary.dump(2));
}

}  // namespace

TEST_CASE("the claims board judges every claim of the DGSA paper on every results folder", "[report]") {
  const PaperFile file = read_paper_file(kPaper);
  const Board board = build_board(file, kResults, "repro report results --board experiments/paper/dgsa.yaml");
  REQUIRE(board.claims.size() == file.claims.size());
  const BoardCounts counts = board_counts(board);
  CHECK(counts.cells == 44);  // Tables 1 and 2; the parameter counts of Tables 5 and 6 are not on the board
  CHECK(counts.trained == counts.within + counts.outside);
  CHECK(counts.trained >= 10);
  int verdicts = 0;
  for (const auto& [verdict, n] : counts.verdicts) verdicts += n;
  CHECK(verdicts == static_cast<int>(file.claims.size()));  // one verdict each

  // The 20 Newsgroups claim: table2/paper has no 20NG runs, table2/gpu has them; the board takes gpu's and says so
  // (the two folders' reports disagreed: "inconclusive — (no runs)" and "contradicted").
  const BoardClaim& newsgroups = board.claims[3];
  CHECK(newsgroups.verdict == Verdict::Contradicted);
  CHECK(newsgroups.verdict_reading == "paper");
  CHECK(newsgroups.readings[0].last.verdict == Verdict::Contradicted);  // at the final epoch too
  CHECK(newsgroups.readings[0].sources[2] == "table2/gpu (GPU)");       // DGT x16/3 − Transformer
  // The readings in the paper file's order: `paper_vectors` has no 20 Newsgroups run (every one there resolved the
  // paper's rule), `paper_table6` its own.
  REQUIRE(newsgroups.readings.size() == 3);
  CHECK(newsgroups.readings[1].reading == "paper_vectors");
  CHECK(newsgroups.readings[1].selected.verdict == Verdict::NotTested);
  CHECK(newsgroups.readings[2].reading == "paper_table6");
  CHECK(newsgroups.readings[2].selected.verdict == Verdict::Contradicted);

  // A cell held by several folders, under two readings: the first reading's, table2/weight_decay's runs under the
  // paper's rule (its `Transformer+no_decay=paper` is the row itself there), is counted; table2/paper's plain row and
  // weight_decay's one run under `vectors_embeddings` are listed, `paper_vectors`.
  const auto& table2 = board.tables[1];
  const BoardCell cell = cell_of(table2, "Transformer", "rotten_tomatoes");
  REQUIRE(cell.source);
  CHECK(cell.reading == "paper");
  CHECK(cell.source->folder->name == "table2/weight_decay");
  CHECK(cell.source->selected.n == 5);
  // Its final epoch is the runs' last (74.60 ± 0.69), not their selected one again (75.57 ± 0.43).
  CHECK(cell.source->selected.mean == Approx(75.57).margin(0.005));
  CHECK(cell.source->last.mean == Approx(74.60).margin(0.005));
  CHECK(cell.source->last.std == Approx(0.69).margin(0.005));
  CHECK(cell.source->not_counted == "");
  REQUIRE(cell.also.size() == 2);
  CHECK(cell.also[0].reading == "paper_vectors");
  CHECK(cell.also[0].folder->name == "table2/paper");
  CHECK(cell.also[0].selected.mean == Approx(74.69).margin(0.005));
  CHECK(cell.status == CellStatus::Outside);
  // Every Rotten Tomatoes cell is judged under the paper's rule, on five seeds (the CPU queue's rt_no_decay).
  for (const auto& c : table2.cells) {
    if (c.paper->column != "rotten_tomatoes") continue;
    INFO(c.paper->row);
    REQUIRE(c.source);
    CHECK(c.reading == "paper");
    CHECK(c.source->folder->name == "table2/weight_decay");
    CHECK(c.source->selected.n == 5);
  }
  const auto imdb = std::find_if(table2.cells.begin(), table2.cells.end(), [](const BoardCell& c) {
    return c.paper->row == "Transformer" && c.paper->column == "imdb";
  });
  CHECK(imdb->status == CellStatus::NotTrained);
  // The bag-of-words floor: a reference row beside the paper's cells (never counted, never compared), at the weight
  // decay with the best mean validation accuracy, as `repro report results/table2/bow --select
  // train.weight_decay` reports it (68.92 ± 0.17 on 20 Newsgroups, weight_decay=0 of six values).
  const auto floor = std::find_if(table2.references.begin(), table2.references.end(), [](const BoardReference& r) {
    return r.reference->row == "Bag of words" && r.column == "newsgroups";
  });
  REQUIRE(floor != table2.references.end());
  CHECK(floor->source.folder->name == "table2/bow");
  CHECK(floor->source.selected.n == 5);
  CHECK(floor->source.selected.mean == Approx(68.92).margin(0.005));
  CHECK(floor->chosen == "weight_decay=0");
  CHECK(floor->candidates == 6);
  // weight_decay=0 and 0.001 tie on mean validation accuracy (74.87 each, seed for seed): the first in the sweep's
  // order is taken, and the board says so.
  CHECK(floor->tied == std::vector<std::string>{"weight_decay=0.001"});
  CHECK(table2.references.size() == 3);  // Rotten Tomatoes, 20 Newsgroups, IMDB: AG News has no runs

  const std::string markdown = board_markdown(board);
  for (const auto& claim : file.claims) CHECK_THAT(markdown, Contains(claim.text));
  CHECK_THAT(markdown, Contains("Of the paper's 44 accuracy cells (Tables 1 and 2), " + std::to_string(counts.trained) +
                                " are trained"));
  CHECK_THAT(markdown, Contains("not trained<br>paper 85.34 ± 0.22"));
  CHECK_THAT(markdown, Contains("| Bag of words | newsgroups | 68.92 ± 0.17 (n = 5) |") &&
                           Contains("weight_decay=0 (best mean val_acc of 6; tied with weight_decay=0.001, taken first "
                                    "in the sweep's order)"));
  CHECK_THAT(markdown, Contains("| Transformer | rotten_tomatoes | 75.57 ± 0.43 (n = 5) | 74.60 ± 0.69 (n = 5) |"));
  CHECK_THAT(markdown, Contains("- Transformer on rotten_tomatoes: table2/paper (CPU) under `paper_vectors`, 74.69 ± "
                                "0.68 (n = 5) (final epoch 74.71 ± 0.61 (n = 5))"));
  CHECK_THAT(markdown, Contains("table2/short (table2, short)"));                 // listed, not judged
  CHECK(board_markdown(build_board(file, kResults, board.command)) == markdown);  // deterministic

  // The GPU records that name no GPU (repro 0.2.0 and 0.6.0 wrote cuda:0 only): what the lease's env.txt of their
  // commit says, marked as not from the records.
  const auto note = [&](const std::string& folder, const std::string& commit) {
    const auto it = std::find_if(board.lease_notes.begin(), board.lease_notes.end(),
                                 [&](const LeaseNote& n) { return n.folder == folder && n.commit == commit; });
    REQUIRE(it != board.lease_notes.end());
    return *it;
  };
  const LeaseNote h200 = note("table2/gpu", "d14d522"), h100 = note("table2/gpu", "c831c09");
  CHECK(h200.gpu == "NVIDIA H200");
  CHECK(h200.file == "`bench/gpu-h200/env.txt`, `table2/gpu/env.txt`");  // the lease's, and its bench's
  CHECK(h200.runs == 9);
  CHECK(h200.versions == "0.2.0");
  CHECK(h200.precision == "auto");
  CHECK(h100.gpu == "NVIDIA H100 80GB HBM3");
  CHECK(h100.runs == 1);
  CHECK(h100.versions == "0.6.0");
  CHECK(note("table2/gpu_table6", "c831c09").runs == 10);
  CHECK_THAT(markdown, Contains("is not from the records") &&
                           Contains("table2/gpu, 9 runs of commit d14d522 (repro 0.2.0): NVIDIA H200 "
                                    "(`bench/gpu-h200/env.txt`, `table2/gpu/env.txt`)"));
}

TEST_CASE("the band rule takes the larger of the two stds", "[report]") {
  // |Δ| ≤ 2·max(std_ours, std_paper) + 0.5; with two different stds at the band's edge min and max disagree.
  PaperCell paper;
  paper.mean = 70, paper.std = 0.2;
  CHECK(within_paper_band(72.4, 1.0, paper));   // 2.4 ≤ 2·1.0 + 0.5 (with min: 2·0.2 + 0.5 = 0.9, outside)
  CHECK(!within_paper_band(72.6, 1.0, paper));  // 2.6 > 2.5
  CHECK(within_paper_band(67.6, 1.0, paper));   // below the paper alike
  paper.std = 1.0;
  CHECK(within_paper_band(72.4, 0.2, paper));  // the paper's std the larger
  CHECK(!within_paper_band(72.6, 0.2, paper));
  CHECK(within_paper_band(70.5, NAN, paper));  // one run: its std counts as 0
  paper.std = 0.0;
  CHECK(within_paper_band(70.5, NAN, paper));
  CHECK(!within_paper_band(70.6, NAN, paper));
}

TEST_CASE("the board's verdict is the selected epoch's, its final readings the final epoch's", "[report]") {
  // table2/paper with DGT x16/3's selected epoch moved to epoch 1 (55-60 % on Rotten Tomatoes, against 74-76 % at
  // the last): at the selected epoch claim 6 is contradicted, at the final epoch its effect is still not reproduced.
  // Its runs are the reading `paper_vectors` (train.no_decay: vectors_embeddings), the first with runs here.
  test::TempDir dir("board-epochs");
  copy_results("table2/paper", dir.path());
  for (int seed = 0; seed < 5; ++seed)
    select_epoch(dir.path() / "table2/paper/rotten_tomatoes/DGT_x16_3" / ("seed_" + std::to_string(seed)), 1);
  const PaperFile file = read_paper_file(kPaper);
  const Board board = build_board(file, dir.path(), "repro report … --board …");
  const BoardClaim& rotten = board.claims[5];
  REQUIRE(rotten.readings.size() >= 2);
  CHECK(rotten.readings[0].reading == "paper");
  CHECK(rotten.readings[0].selected.verdict == Verdict::NotTested);  // no run under the paper's rule in this copy
  CHECK(rotten.readings[1].reading == "paper_vectors");
  CHECK(rotten.readings[1].selected.verdict == Verdict::Contradicted);
  CHECK(rotten.readings[1].last.verdict == Verdict::NotReproduced);
  CHECK(rotten.verdict_reading == "paper_vectors");
  CHECK(rotten.verdict == Verdict::Contradicted);  // the headline: the selected epoch's
  const BoardCell dgt = cell_of(board.tables[1], "DGT x16/3", "rotten_tomatoes");
  REQUIRE(dgt.source);
  CHECK(dgt.source->selected.mean ==
        Approx((59.662289 + 57.317073 + 54.690432 + 56.003752 + 55.065666) / 5).epsilon(1e-6));
  CHECK(dgt.source->last.mean == Approx((74.202627 + 75.984991 + 74.108818 + 73.921201 + 74.765478) / 5).epsilon(1e-6));
  const std::string markdown = board_markdown(board);
  CHECK_THAT(markdown, Contains("| 6 | DGT improves on the Transformer on Rotten Tomatoes, IMDB and AG News |"));
  CHECK_THAT(markdown, Contains("| **contradicted** | effect not reproduced | `paper_vectors` |"));
  CHECK_THAT(markdown, Contains("| DGT x16/3 | rotten_tomatoes | 56.55 ± 2.01 (n = 5) | 74.60 ± 0.84 (n = 5) |"));
}

TEST_CASE("a record the board cannot count is named on the board and on stderr", "[report][cli]") {
  // table2/gpu with three of the Transformer's five records spoiled: one damaged, one of a newer repro, one a link
  // to another run's folder. The cell counts the other two and says why n = 2.
  test::TempDir dir("board-bad-records");
  const fs::path root = dir.path() / "results";
  copy_results("table2/gpu", root);
  const fs::path runs = root / "table2/gpu/newsgroups/Transformer";
  test::write_text(runs / "seed_0/summary.json", "{\"status\": \"compl");
  auto newer = nlohmann::json::parse(read_file(runs / "seed_1/summary.json"));
  newer["record_version"] = 99;
  write_file_atomic(runs / "seed_1/summary.json", newer.dump(2));
  fs::rename(runs / "seed_2", dir.path() / "elsewhere");
  fs::create_directory_symlink(dir.path() / "elsewhere", runs / "seed_2");
  const PaperFile file = read_paper_file(kPaper);
  const Board board = build_board(file, root, "repro report … --board …");
  const BoardCell cell = cell_of(board.tables[1], "Transformer", "newsgroups");
  REQUIRE(cell.source);
  CHECK(cell.source->selected.n == 2);
  CHECK(cell.source->not_counted == "2 corrupt, 1 link");
  REQUIRE(board.bad_records.size() == 3);
  CHECK_THAT(board.bad_records[0] + board.bad_records[1] + board.bad_records[2],
             Contains((runs / "seed_0/summary.json").string()) && Contains((runs / "seed_1").string()) &&
                 Contains((runs / "seed_2").string()));
  const std::string markdown = board_markdown(board);
  CHECK_THAT(markdown, Contains("(n = 2; 2 corrupt, 1 link)"));
  CHECK_THAT(markdown, Contains("Records not counted in the folders judged"));
  for (const auto& line : board.bad_records) CHECK_THAT(markdown, Contains(line));

  const auto run = test::run_repro("report " + root.string() + " --board " + kPaper.string() + " -o " +
                                   (dir.path() / "board.md").string());
  CHECK(run.exit_code == 0);
  CHECK_THAT(run.output, Contains("record not counted: corrupt: " + (runs / "seed_0/summary.json").string()));
  CHECK_THAT(run.output, Contains("record not counted: link: "));
}

TEST_CASE("a row keeps its colour whatever the other rows of a figure", "[report]") {
  CHECK(row_colour("DGT x16/3") == 2);
  CHECK(row_colour("DGT x16/3") != row_colour("DGT x16/3+no_decay=paper"));  // a swept configuration: its own
  CHECK(row_colour("DGT x16/3+no_decay=paper") == row_colour("DGT x16/3+no_decay=paper"));
  CHECK(row_colour("DGT x16/3") != row_colour("DIFF Transformer x16/3"));
  CHECK(row_colour("Transformer") != row_colour("DGT x16/3"));
  const std::vector<std::string> table2 = {
      "Transformer", "DIFF Transformer x2", "DIFF Transformer x4", "DIFF Transformer x16/3", "DGT x2", "DGT x4",
      "DGT x16/3"};
  std::set<int> colours;
  for (const auto& row : table2) colours.insert(row_colour(row));
  CHECK(colours.size() == table2.size());  // Table 2's seven rows, seven colours
  CHECK(palette_hex(0) == "#0072b2");
  CHECK(row_colour("some other row") == row_colour("some other row"));
  CHECK(row_colour("some other row") >= 0);
  CHECK(row_colour("some other row") < kPaletteSize);
}

TEST_CASE("a figure's line never joins points of different n, and its legend says n when it differs", "[report]") {
  ChartSeries five_then_one;
  five_then_one.label = "DGT x16/3";
  five_then_one.x = {0, 1, 2, 3}, five_then_one.y = {70, 71, 69, 72}, five_then_one.n = {5, 5, 1, 1};
  CHECK(same_n_stretches(five_then_one) == std::vector<std::pair<size_t, size_t>>{{0, 2}, {2, 4}});
  ChartSeries steady = five_then_one;
  steady.label = "Transformer", steady.n = {5, 5, 5, 5};
  CHECK(same_n_stretches(steady) == std::vector<std::pair<size_t, size_t>>{{0, 4}});
  ChartSeries unknown = steady;
  unknown.n.clear();
  CHECK(same_n_stretches(unknown) == std::vector<std::pair<size_t, size_t>>{{0, 4}});

  Chart chart;
  chart.series = {steady, five_then_one};
  const Chart drawn = with_n_in_legend(chart);
  CHECK(drawn.series[0].label == "Transformer (n = 5)");
  CHECK(drawn.series[1].label == "DGT x16/3 (n = 1–5)");
  chart.series = {steady, steady};
  CHECK(with_n_in_legend(chart).series[1].label == "Transformer");  // one n everywhere: nothing added
}

TEST_CASE("DGT x16/3 has one colour in table2/gpu's and cpu_newsgroups' figures", "[report]") {
  // Before issue 46 the colour was the row's index in its folder: orange in gpu (2 rows), green in cpu_newsgroups.
  const auto colour_in = [](const std::string& folder, const std::string& row) {
    for (const auto& results : collect_results(kResults / folder, Metric::TestAcc))
      for (const auto& named : learning_charts(results))
        for (const auto& series : named.chart.series)
          if (series.label == row) return series.colour;
    return -1;
  };
  const int gpu = colour_in("table2/gpu", "DGT x16/3");
  CHECK(gpu == row_colour("DGT x16/3"));
  CHECK(colour_in("table2/cpu_newsgroups", "DGT x16/3") == gpu);
  CHECK(colour_in("table2/cpu_newsgroups", "Transformer") == colour_in("table2/gpu", "Transformer"));
  CHECK(colour_in("table2/cpu_newsgroups", "DIFF Transformer x16/3") != gpu);
}

TEST_CASE("report --against --plots overlays each row with its twins; its figures are named after its report",
          "[report][cli]") {
  test::TempDir dir("board-against");
  const fs::path out = dir.path() / "against_gpu.md";
  const auto run = test::run_repro("report " + (kResults / "table2/cpu_newsgroups").string() + " --against " +
                                   (kResults / "table2/gpu").string() + " --plots -o " + out.string());
  REQUIRE(run.exit_code == 0);
  const fs::path overlay = dir.path() / "figures/against_gpu_table2_paper_newsgroups_against.csv";
  REQUIRE(fs::exists(overlay));
  const std::string csv = read_file(overlay);
  CHECK_THAT(csv, Contains("\"DGT x16/3, cpu_newsgroups\",10,64.72"));
  CHECK_THAT(csv, Contains("\"DGT x16/3, gpu\",10,64.63"));
  CHECK(csv.find("DIFF Transformer x16/3") == std::string::npos);  // no GPU twin
  CHECK(fs::exists(dir.path() / "figures/against_gpu_table2_paper_newsgroups_accuracy.png"));
  CHECK(!fs::exists(dir.path() / "figures/table2_paper_newsgroups_accuracy.png"));  // report.md's name: untouched
  CHECK_THAT(read_file(out), Contains("figures/against_gpu_table2_paper_newsgroups_against.png"));
}

TEST_CASE("report --compare judges each claim at the final epoch beside the selected one", "[report]") {
  const PaperFile file = read_paper_file(kPaper);
  const auto selected = collect_results(kResults / "table2/gpu", Metric::TestAcc, RecordEpoch::Selected);
  const auto last = collect_results(kResults / "table2/gpu", Metric::TestAcc, RecordEpoch::Final);
  REQUIRE(selected.size() == 1);
  REQUIRE(last.size() == 1);
  const std::string both = claims_report(selected[0], file.tables, file.claims, &last[0]);
  CHECK_THAT(both, Contains("ours **contradicted** (at the final epoch: contradicted)"));
  CHECK_THAT(both, Contains("| DGT x16/3 − Transformer | newsgroups | -1.66 [-2.31, -1.00] | contradicted | 100% | "
                            "-1.77 [-2.37, -1.17] | contradicted |"));
  const std::string one = claims_report(selected[0], file.tables, file.claims);
  CHECK(one.find("final epoch") == std::string::npos);
}

// Issue 64, item 1: report --compare folded "no runs" into inconclusive where the board said not tested; both now judge
// by evaluate_claim's one rule and name verdicts from one table.
TEST_CASE("report --compare and the board judge a claim by one rule, in one vocabulary", "[report][cli]") {
  const PaperFile file = read_paper_file(kPaper);
  const Board board = build_board(file, kResults, "repro report results --board experiments/paper/dgsa.yaml");
  const auto selected = collect_results(kResults / "table2/paper", Metric::TestAcc, RecordEpoch::Selected);
  const auto last = collect_results(kResults / "table2/paper", Metric::TestAcc, RecordEpoch::Final);
  REQUIRE(selected.size() == 1);
  const std::string paper = claims_report(selected[0], file.tables, file.claims, &last[0]);
  // Claim 6 under `paper_vectors`: its Rotten Tomatoes runs are table2/paper's (train.no_decay: vectors_embeddings),
  // on the board as in the folder's report; IMDB and AG News have no runs: not tested in both.
  const ReadingVerdict& rotten = board.claims[5].readings[1];
  REQUIRE(rotten.reading == "paper_vectors");
  int untested = 0;
  for (size_t i = 0; i < rotten.selected.comparisons.size(); ++i) {
    const ComparisonVerdict& c = rotten.selected.comparisons[i];
    untested += c.verdict == Verdict::NotTested;
    CHECK_THAT(paper, Contains("| " + c.pair.row + " − " + c.pair.over + " | " + c.dataset + " | " +
                               comparison_text(c) + " | " + name_of(c.verdict) + " |"));
  }
  CHECK(untested == 6);
  // Claim 4 has no run here (the board judges it on table2/gpu: contradicted): not tested, and the report says the
  // board reads more folders.
  CHECK_THAT(paper, Contains("(§5.2, Table 2): ours **not tested** (at the final epoch: not tested)"));
  CHECK(board.claims[3].verdict == Verdict::Contradicted);
  CHECK_THAT(paper, Contains("The claims board (`repro report RESULTS --board PAPER.yaml`, results/README.md) reads "
                             "every results folder") &&
                        Contains("(`paper` (train.no_decay: paper), `paper_vectors` (profile `paper`, train.no_decay: "
                                 "vectors_embeddings), `paper_table6`)") && Contains("(15 comparisons not tested here)"));
  CHECK(paper.find("inconclusive (also with fewer than 2 seeds on a side or no runs)") == std::string::npos);
  // table2/gpu: claim 6 has no run of its datasets there.
  const auto gpu = collect_results(kResults / "table2/gpu", Metric::TestAcc);
  CHECK_THAT(claims_report(gpu[0], file.tables, file.claims),
             Contains("DGT improves on the Transformer on Rotten Tomatoes, IMDB and AG News** (§5.2: 'a modest "
                      "improvement of 1-2% on the Rotten Tomatoes, IMDB, and AG News datasets'): ours **not tested**"));
  // A folder whose profile is no reading of the paper's protocol: the board does not judge its runs, and says so.
  const auto short_runs = collect_results(kResults / "table2/short", Metric::TestAcc);
  CHECK_THAT(claims_report(short_runs[0], file.tables, file.claims),
             Contains("these runs (profile `short`) are not among them, so its verdicts are not this report's"));
  // Every verdict with its meaning, from the one table, in `repro report --help`.
  const auto help = test::run_repro("report --help");
  CHECK(help.exit_code == 0);
  REQUIRE(verdict_table().size() == 5);
  for (const auto& entry : verdict_table()) {
    CHECK(name_of(entry.verdict) == entry.name);
    CHECK_THAT(help.output, Contains(std::string(entry.name) + ": " + entry.meaning));
  }
}

// Issue 64, item 2: `repro report results` refused, since seed 0 of two table2 rows on 20 Newsgroups is in table2/gpu
// and in table2/cpu_newsgroups, even with --rows selecting a row without a duplicate.
TEST_CASE("repro report of several results folders counts one folder per cell, by the board's rule", "[report][cli]") {
  const auto all = test::run_repro("report " + kResults.string());
  INFO(all.output.substr(0, 3000));
  REQUIRE(all.exit_code == 0);
  const std::string gpu = (kResults / "table2/gpu").generic_string(),
                    cpu = (kResults / "table2/cpu_newsgroups").generic_string();
  CHECK_THAT(all.output, Contains("### table2 (profile paper): test_acc"));
  CHECK_THAT(all.output, Contains("Cells that several results folders hold (one cell, one folder: the one with the "
                                  "most complete runs of it, then by name, as the claims board takes a cell"));
  CHECK_THAT(all.output, Contains("- Transformer on newsgroups: counted from " + gpu + " (5 complete); not from " +
                                  cpu + " (1 complete); seed 0 in both\n"));
  CHECK_THAT(all.output, Contains("- DGT x16/3 on newsgroups: counted from " + gpu + " (5 complete)"));
  // The board takes the same folder for that cell.
  const PaperFile file = read_paper_file(kPaper);
  const Board board = build_board(file, kResults, "repro report results --board experiments/paper/dgsa.yaml");
  const BoardCell cell = cell_of(board.tables[1], "Transformer", "newsgroups");
  REQUIRE(cell.source);
  CHECK(cell.source->folder->name == "table2/gpu");
  // DIFF x16/3 on 20 Newsgroups: only cpu_newsgroups holds a record (gpu's plan lists its five seeds, none trained).
  CHECK_THAT(all.output, Contains("- DIFF Transformer x16/3 on newsgroups: counted from " + cpu +
                                  " (5 complete); not "
                                  "from " +
                                  gpu + " (5 pending); seed 0, 1, 2, 3, 4 in both\n"));
  // The selectors apply first: a row without a duplicate, in a folder of folders.
  const auto diff = test::run_repro("report " + (kResults / "table2").string() +
                                    " --rows 'DIFF Transformer x16/3' "
                                    "--datasets newsgroups");
  INFO(diff.output);
  CHECK(diff.exit_code == 0);
  CHECK_THAT(diff.output, Contains("| DIFF Transformer x16/3 | 66.21 ± 0.14 |"));
  CHECK_THAT(diff.output, Contains("counted from " + cpu + " (5 complete); not from " + gpu + " (5 pending)"));
  CHECK(diff.output.find("Transformer on newsgroups") == std::string::npos);  // left out by the selectors
}

// Issue 64, item 4: both seeds of a row corrupt made the cell "not trained" and the claim "no reading trained".
TEST_CASE("a cell none of whose records is counted says n = 0 and why; its claim names them", "[report]") {
  test::TempDir dir("board-all-corrupt");
  const fs::path root = dir.path() / "results";
  copy_results("table2/gpu", root);
  const fs::path runs = root / "table2/gpu/newsgroups/Transformer";
  for (int seed = 0; seed < 5; ++seed)
    test::write_text(runs / ("seed_" + std::to_string(seed)) / "summary.json", "{\"status\": \"compl");
  const PaperFile file = read_paper_file(kPaper);
  const Board board = build_board(file, root, "repro report … --board …");
  const BoardCell cell = cell_of(board.tables[1], "Transformer", "newsgroups");
  CHECK_FALSE(cell.source);
  REQUIRE(cell.uncounted);
  CHECK(cell.uncounted->bad_records.size() == 5);
  CHECK(cell.status == CellStatus::NotTrained);  // nothing to hold against the paper's band
  const std::string markdown = board_markdown(board);
  CHECK_THAT(markdown, Contains("| — (n = 0; 5 corrupt)<br>paper 51.54 ± 0.49"));
  CHECK_THAT(markdown, Contains("(1 of them with records none of which is counted)"));
  const BoardClaim& newsgroups = board.claims[3];
  CHECK(newsgroups.verdict == Verdict::NotTested);
  const std::string named = "Transformer on newsgroups in table2/gpu: 5 corrupt, none counted (" +
                            (runs / "seed_0").string() + ", " + (runs / "seed_1").string();
  CHECK_THAT(markdown, Contains("| **not tested** | — | not judged: records not counted: " + named));
  CHECK_THAT(markdown, Contains("Not judged under `paper`: DGT x2 − Transformer on newsgroups; DGT x4 − Transformer "
                                "on newsgroups; DGT x16/3 − Transformer on newsgroups: records not counted: " +
                                named));
  CHECK(markdown.find("| **not tested** | — | no reading trained | supported |\n| 5") == std::string::npos);
}

// Issue 64, item 5: what a killed `repro collect` leaves inside TO (`.collect.tmp-PID`, a staged copy of records) was
// read by report as results, by status as an experiment and by the board as a folder.
TEST_CASE("a collect's staging folder is never records: report, status and the board skip it and name it",
          "[report][cli]") {
  test::TempDir dir("board-staging");
  const fs::path root = dir.path() / "results";
  copy_results("table2/gpu", root);
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);  // a pid no process has: the collect that was killed
  const fs::path staging = root / (".collect.tmp-" + std::to_string(child));
  copy_results("table2/gpu", staging);
  const auto report = test::run_repro("report " + root.string());
  INFO(report.output.substr(0, 2000));
  CHECK(report.exit_code == 0);
  CHECK_THAT(report.output, Contains(staging.string() + ": skipped, not records: a temporary folder left by process " +
                                     std::to_string(child) +
                                     ", which is gone (a repro collect that was killed): "
                                     "the next repro collect into " +
                                     root.string() + " removes it"));
  CHECK(test::count_of(report.output, "skipped, not records") == 1);          // once, though the command reads twice
  CHECK_THAT(report.output, Contains("| Transformer | **66.24 ± 0.37** |"));  // table2/gpu's five runs, once
  const auto status = test::run_repro("status " + root.string());
  INFO(status.output);
  CHECK(status.exit_code == 0);
  CHECK(status.output.find(".collect.tmp-" + std::to_string(child) + "/table2") == std::string::npos);
  CHECK_THAT(status.output, Contains("table2/gpu (") && Contains("skipped, not records"));
  const PaperFile file = read_paper_file(kPaper);
  const Board board = build_board(file, root, "repro report … --board …");
  REQUIRE(board.folders.size() == 1);
  CHECK(board.folders[0].name == "table2/gpu");
}

// Issue 66: Table 2's Rotten Tomatoes cells judged under the paper's weight-decay rule (train.no_decay: paper), the
// records of repro before 0.3 (vectors and embeddings also exempt) as another reading beside it. A reading that
// names settings holds the runs of its profile whose spec.resolved.yaml resolved them; a record written before the
// key existed reads as what it ran with.
TEST_CASE("a reading that names settings judges only the runs that resolved them", "[report]") {
  test::TempDir dir("board-readings");
  const fs::path root = dir.path() / "results";
  copy_results("table2/paper", root);
  copy_results("table2/weight_decay", root);
  // The committed paper file: Table 2's `paper` sets train.no_decay: paper, `paper_vectors` (profile paper)
  // vectors_embeddings.
  const PaperFile file = read_paper_file(kPaper);
  const Board board = build_board(file, root, "repro report results --board dgsa.yaml");

  // Transformer: weight_decay's configuration with the reading's own value is the row itself under `paper`, and
  // table2/paper's plain row (its records name no train.no_decay) is the other reading's.
  const BoardCell transformer = cell_of(board.tables[1], "Transformer", "rotten_tomatoes");
  REQUIRE(transformer.source);
  CHECK(transformer.reading == "paper");
  CHECK(transformer.source->folder->name == "table2/weight_decay");
  CHECK(transformer.source->model_config == "Transformer+no_decay=paper");
  CHECK_FALSE(transformer.source->swept);
  CHECK(transformer.source->selected.n == 5);
  CHECK(transformer.source->selected.mean == Approx(75.57).margin(0.005));
  REQUIRE(transformer.also.size() == 2);
  CHECK(transformer.also[0].reading == "paper_vectors");
  CHECK(transformer.also[0].folder->name == "table2/paper");  // the plain row, 5 runs
  CHECK(transformer.also[0].selected.n == 5);
  CHECK(transformer.also[1].model_config == "Transformer+no_decay=vectors_embeddings");
  CHECK(transformer.also[1].selected.n == 1);
  // DGT x4, trained last by the CPU queue: weight_decay's runs under `paper`, table2/paper's beside them.
  const BoardCell dgt_x4 = cell_of(board.tables[1], "DGT x4", "rotten_tomatoes");
  REQUIRE(dgt_x4.source);
  CHECK(dgt_x4.reading == "paper");
  CHECK(dgt_x4.source->folder->name == "table2/weight_decay");
  CHECK(dgt_x4.source->model_config == "DGT x4+no_decay=paper");
  REQUIRE(dgt_x4.also.size() == 1);
  CHECK(dgt_x4.also[0].reading == "paper_vectors");
  CHECK(dgt_x4.also[0].folder->name == "table2/paper");

  // Claim 6 under each reading: all three rows on Rotten Tomatoes under both (IMDB and AG News not trained).
  const BoardClaim& rotten = board.claims[5];
  REQUIRE(rotten.readings.size() == 3);
  CHECK(rotten.verdict_reading == "paper");
  for (int r = 0; r < 2; ++r) {
    INFO(rotten.readings[r].reading);
    CHECK(rotten.readings[r].selected.comparisons.size() == 9);
    int tested = 0;
    for (const auto& c : rotten.readings[r].selected.comparisons) tested += c.test.has_value();
    CHECK(tested == 3);
  }
  CHECK(rotten.readings[0].reading == "paper");
  CHECK_THAT(rotten.readings[0].sources[2], Contains("table2/weight_decay: DGT x16/3+no_decay=paper (CPU)"));
  CHECK(rotten.readings[1].reading == "paper_vectors");
  CHECK(rotten.readings[1].sources[0] == "table2/paper (CPU)");
  CHECK(rotten.readings[1].selected.verdict == Verdict::NotReproduced);
  CHECK(rotten.readings[2].reading == "paper_table6");  // no Rotten Tomatoes run
  CHECK(rotten.readings[2].selected.verdict == Verdict::NotTested);

  const std::string markdown = board_markdown(board);
  CHECK_THAT(markdown, Contains("and of those only the runs with the settings a reading names (") &&
                           Contains("Table 2: `paper_vectors` (profile `paper`, train.no_decay: vectors_embeddings), "
                                    "Table 4 with every vector"));
  CHECK_THAT(markdown, Contains("- Transformer on rotten_tomatoes: table2/paper (CPU) under `paper_vectors`, 74.69 ± "
                                "0.68 (n = 5)"));
  // A paper file whose readings name no settings: its board does not say it, and takes table2/paper's plain row
  // under `paper` (a record that names no train.no_decay is any run of the profile there).
  std::string text = read_file(kPaper);
  const size_t begin = text.find("    readings:\n      paper: {set:");
  REQUIRE(begin != std::string::npos);
  const size_t end = text.find("      paper_table6:", begin);
  REQUIRE(end != std::string::npos);
  text.replace(begin, end - begin, "    readings:\n      paper: \"Table 4 as printed\"\n");
  const fs::path plain = dir.path() / "dgsa.yaml";
  test::write_text(plain, text);
  const PaperFile plain_file = read_paper_file(plain);  // the board points into it: it must outlive the board
  const Board plain_board = build_board(plain_file, root, "x");
  CHECK(board_markdown(plain_board).find("settings a reading names") == std::string::npos);
  CHECK(cell_of(plain_board.tables[1], "Transformer", "rotten_tomatoes").source->folder->name == "table2/paper");
}
