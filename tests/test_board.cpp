// The claims board (issue 46, item 0): `repro report RESULTS --board PAPER` judges every claim of the paper file on
// every results folder below RESULTS, one verdict per claim, and writes Markdown and one self-contained HTML page;
// the page opens in headless Chromium with every figure decoded. Built on the committed results/ (read only).
#include <algorithm>
#include <cstdlib>
#include <set>
#include <filesystem>
#include <string>

#include "catch.h"
#include "fixtures.h"
#include "report/board.h"
#include "report/claims.h"
#include "report/collect.h"
#include "report/figures.h"
#include "report/palette.h"
#include "report/paper_file.h"
#include "report/plot.h"
#include "run_repro.h"
#include "util/error.h"
#include "util/files.h"

using namespace repro;
using repro::test::Contains;
namespace fs = std::filesystem;

namespace {

const fs::path kSource = REPRO_SOURCE_DIR;
const fs::path kPaper = kSource / "experiments/paper/dgsa.yaml";
const fs::path kResults = kSource / "results";

size_t count_of(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++count;
  return count;
}

std::string html_text(std::string text) {  // as board_html escapes it
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}}) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  }
  return text;
}

std::string chromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    const auto found = test::run_command(std::string("command -v ") + name);
    if (found.exit_code == 0) return name;
  }
  return "";
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
  CHECK(newsgroups.readings[1].reading == "paper_table6");
  CHECK(newsgroups.readings[1].selected.verdict == Verdict::Contradicted);

  // A cell held by several folders: the plain row with the most runs is counted, the others listed.
  const auto& table2 = board.tables[1];
  const auto cell = std::find_if(table2.cells.begin(), table2.cells.end(), [](const BoardCell& c) {
    return c.paper->row == "Transformer" && c.paper->column == "rotten_tomatoes";
  });
  REQUIRE(cell != table2.cells.end());
  REQUIRE(cell->source);
  CHECK(cell->source->folder->name == "table2/paper");
  CHECK(cell->source->selected.n == 5);
  CHECK(cell->also.size() == 2);  // weight_decay's two readings of weight decay
  CHECK(cell->status == CellStatus::Outside);
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
  CHECK(table2.references.size() == 3);  // Rotten Tomatoes, 20 Newsgroups, IMDB: AG News has no runs

  const std::string markdown = board_markdown(board);
  for (const auto& claim : file.claims) CHECK_THAT(markdown, Contains(claim.text));
  CHECK_THAT(markdown, Contains("Of the paper's 44 accuracy cells (Tables 1 and 2), " +
                                std::to_string(counts.trained) + " are trained"));
  CHECK_THAT(markdown, Contains("not trained<br>paper 85.34 ± 0.22"));
  CHECK_THAT(markdown, Contains("| Bag of words | newsgroups | 68.92 ± 0.17 (n = 5) |") &&
                           Contains("weight_decay=0 (best mean val_acc of 6)"));
  CHECK_THAT(markdown, Contains("table2/short (table2, short)"));  // listed, not judged
  CHECK(board_markdown(build_board(file, kResults, board.command)) == markdown);  // deterministic
}

TEST_CASE("the claims board's HTML page opens in headless Chromium with every claim and every figure", "[report]") {
  const std::string browser = chromium();
  if (browser.empty()) {
    WARN("no chromium on PATH (apt-get install chromium): the browser check is skipped");
    return;
  }
  const PaperFile file = read_paper_file(kPaper);
  const Board board = build_board(file, kResults, "repro report results --board experiments/paper/dgsa.yaml");
  const std::string html = board_html(board);
  CHECK(html.find("http://") == html.find("http://www.w3.org/2000/svg"));  // no network: only the SVG namespace
  CHECK(html.find("https://") == std::string::npos);
  test::TempDir dir("board-html");
  const fs::path page = dir.path() / "board.html";
  write_file_atomic(page, html);
  const std::string flags = " --headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=5000";
  const auto dom = test::run_command("timeout 120 " + browser + flags + " --dump-dom file://" + page.string() +
                                     " 2>/dev/null");
  REQUIRE(dom.exit_code == 0);
  const size_t figures = count_of(html, "<img class=\"figure\"");
  CHECK(figures >= 3);  // claims 4 and 6, Table 2
  CHECK_THAT(dom.output, Contains("figures loaded: " + std::to_string(figures) + " of " + std::to_string(figures)));
  for (const auto& claim : file.claims) CHECK_THAT(dom.output, Contains(html_text(claim.text)));
  CHECK(count_of(dom.output, "<tr class=\"claim\"") == file.claims.size());
  // A screenshot to look at (REPRO_BOARD_SCREENSHOT=FILE keeps it).
  if (const char* keep = std::getenv("REPRO_BOARD_SCREENSHOT")) {
    const auto shot = test::run_command("timeout 120 " + browser + flags + " --window-size=1280,4000 --screenshot=" +
                                        std::string(keep) + " file://" + page.string() + " 2>/dev/null");
    CHECK(shot.exit_code == 0);
    CHECK(fs::file_size(keep) > 10000);
  }
}

TEST_CASE("repro report --board writes board.md, board.html and the markers of each --into file", "[report][cli]") {
  test::TempDir dir("board-cli");
  const fs::path readme = dir.path() / "README.md", results_readme = dir.path() / "results.md";
  test::write_text(readme, "# repro\n\nintro\n<!-- repro board: coverage -->\nold\n<!-- repro board: coverage end -->\n"
                           "\n## Quick start\n");
  test::write_text(results_readme, "# Results\n\n<!-- repro board: begin -->\nold\n<!-- repro board: end -->\n\nmore\n");
  const auto run = test::run_repro("report " + kResults.string() + " --board " + kPaper.string() + " -o " +
                                   (dir.path() / "board.md").string() + " --into " + readme.string() + " --into " +
                                   results_readme.string());
  REQUIRE(run.exit_code == 0);
  const std::string board = read_file(dir.path() / "board.md");
  CHECK_THAT(board, Contains("## The claims board: "));
  CHECK(fs::file_size(dir.path() / "board.html") > 10000);
  const std::string top = read_file(readme);
  CHECK_THAT(top, Contains("intro\n<!-- repro board: coverage -->\nOf the paper's 44 accuracy cells"));
  CHECK_THAT(top, Contains("<!-- repro board: coverage end -->\n\n## Quick start\n"));
  CHECK(top.find("old") == std::string::npos);
  const std::string results = read_file(results_readme);
  CHECK_THAT(results, Contains("<!-- repro board: begin -->\n" + board + "<!-- repro board: end -->\n\nmore\n"));

  // A file without markers, or with half a pair, is refused and left as it was.
  const fs::path plain = dir.path() / "plain.md";
  test::write_text(plain, "# nothing\n<!-- repro board: begin -->\n");
  const auto refused = test::run_repro("report " + kResults.string() + " --board " + kPaper.string() + " -o " +
                                       (dir.path() / "b.md").string() + " --into " + plain.string());
  CHECK(refused.exit_code != 0);
  CHECK_THAT(refused.output, Contains(plain.string() + ": expected both '<!-- repro board: begin -->'"));
  CHECK(read_file(plain) == "# nothing\n<!-- repro board: begin -->\n");
  const auto alone = test::run_repro("report " + kResults.string() + " --board " + kPaper.string() + " --stats");
  CHECK(alone.exit_code != 0);
  CHECK_THAT(alone.output, Contains("--board"));
}

TEST_CASE("a row keeps its colour whatever the other rows of a figure", "[report]") {
  CHECK(row_colour("DGT x16/3") == 2);
  CHECK(row_colour("DGT x16/3") != row_colour("DGT x16/3+no_decay=paper"));  // a swept configuration: its own
  CHECK(row_colour("DGT x16/3+no_decay=paper") == row_colour("DGT x16/3+no_decay=paper"));
  CHECK(row_colour("DGT x16/3") != row_colour("DIFF Transformer x16/3"));
  CHECK(row_colour("Transformer") != row_colour("DGT x16/3"));
  const std::vector<std::string> table2 = {"Transformer", "DIFF Transformer x2", "DIFF Transformer x4",
                                           "DIFF Transformer x16/3", "DGT x2", "DGT x4", "DGT x16/3"};
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
