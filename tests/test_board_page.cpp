// The claims board's page (issue 58): board.html says everything board.md says (every table cell, verdict,
// not-trained line, ledger item and note, read as a reader reads them), in words rather than colours or hover
// texts, with no test text of its own; in headless Chromium its figures decode, its text holds board.md's facts,
// it fits 800 px, and screenshots at 800 and 1400 px are taken. .ci/run installs Chromium
// (scripts/install-packages --with-browser) and sets REPRO_REQUIRE_BROWSER=1, so there the browser test cannot skip.
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "catch.h"
#include "fixtures.h"
#include "report/board/board.h"
#include "report/claims/paper_file.h"
#include "run_repro.h"
#include "util/files.h"
#include "util/strings.h"

using namespace repro;
using repro::test::Contains;
namespace fs = std::filesystem;

namespace {

const fs::path kPagePaper = fs::path(REPRO_SOURCE_DIR) / "experiments/paper/dgsa.yaml";
const fs::path kPageResults = fs::path(REPRO_SOURCE_DIR) / "results";

std::string collapsed(const std::string& text) {  // runs of whitespace as one space
  return trim(std::regex_replace(text, std::regex("\\s+"), " "));
}

std::string entities_decoded(std::string text) {  // the entities board_html writes
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}})
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  return text;
}

// The page's text as a reader sees it without a browser: the body's tags dropped (a cell's, a line break's and a
// block's end as a space), entities decoded, whitespace collapsed.
std::string page_text(const std::string& html) {
  std::string body = html.substr(html.find("<body>"));
  body = std::regex_replace(
      body, std::regex("<br>|</?(td|th|tr|p|li|ul|h[1-6]|table|thead|tbody|figure|figcaption)[^>]*>"), " ");
  body = std::regex_replace(body, std::regex("<[^>]*>"), "");
  return collapsed(entities_decoded(body));
}

// What board.md states, one fact each as a reader reads it (Markdown's marks dropped): every table cell (a <br>
// splits one), every list item, every other line.
std::vector<std::string> markdown_facts(const std::string& markdown) {
  const auto plain = [](std::string text) {
    text = std::regex_replace(text, std::regex("\\\\\\|"), "|");
    text = std::regex_replace(text, std::regex("[*`]"), "");
    return collapsed(text);
  };
  std::vector<std::string> facts;
  for (const auto& line : split_lines(markdown)) {
    if (trim(line).empty() || std::regex_match(line, std::regex("\\|(---\\|)+"))) continue;
    std::vector<std::string> parts;
    if (starts_with(line, "| ")) {
      std::string row = std::regex_replace(line, std::regex("\\\\\\|"), "\x01");
      for (auto cell : split(row.substr(1, row.size() - 2), '|')) {
        cell = std::regex_replace(cell, std::regex("\x01"), "\\|");
        for (const auto& part : split(std::regex_replace(cell, std::regex("<br>"), "\x02"), '\x02'))
          parts.push_back(part);
      }
    } else {
      parts.push_back(std::regex_replace(line, std::regex("^(#+|-) "), ""));
    }
    for (const auto& part : parts)
      if (!plain(part).empty()) facts.push_back(plain(part));
  }
  return facts;
}

// The facts of board.md that `text` lacks.
std::vector<std::string> missing_facts(const std::string& markdown, const std::string& text) {
  std::vector<std::string> missing;
  for (const auto& fact : markdown_facts(markdown))
    if (text.find(fact) == std::string::npos) missing.push_back(fact);
  return missing;
}

Board committed_board(const PaperFile& file) {
  return build_board(file, kPageResults, "repro report results --board experiments/paper/dgsa.yaml");
}

std::string chromium() {
  for (const char* name : {"chromium-headless-shell", "chromium", "chromium-browser", "google-chrome"})
    if (test::run_command(std::string("command -v ") + name).exit_code == 0) return name;
  return "";
}

// The width of a PNG file (its IHDR chunk); 0 when it is not one.
uint32_t png_width(const fs::path& png) {
  const std::string bytes = read_file(png);
  if (bytes.size() < 24 || bytes.compare(1, 3, "PNG") != 0) return 0;
  uint32_t width = 0;
  for (int i = 16; i < 20; ++i) width = (width << 8) | static_cast<unsigned char>(bytes[i]);
  return width;
}

// Appended to the test's copy of the page (never to board.html): after loading, the figures decoded, the page's
// width against the window's and the body's rendered text (innerText: what CSS shows), in a <pre> --dump-dom prints.
const char* kProbe =
    "<script>window.addEventListener('load',function(){var images=Array.prototype.slice.call(document.images);"
    "var loaded=images.filter(function(i){return i.complete&&i.naturalWidth>0;}).length;"
    "var split=Array.prototype.slice.call(document.querySelectorAll('.ci')).filter(function(s){"
    "return s.getClientRects().length>1;}).length;"
    "var text=document.body.innerText;var probe=document.createElement('pre');probe.id='probe';"
    "probe.textContent='figures: '+loaded+' of '+images.length+'\\nwidth: '+document.documentElement.scrollWidth+"
    "' of '+window.innerWidth+'\\nintervals split: '+split+' of '+document.querySelectorAll('.ci').length+"
    "'\\n'+text;document.body.appendChild(probe);});</script>";

}  // namespace

TEST_CASE("board.html says everything board.md says, in words", "[report]") {
  const PaperFile file = read_paper_file(kPagePaper);
  const Board board = committed_board(file);
  const std::string markdown = board_markdown(board), html = board_html(board);
  const std::string text = page_text(html);
  const auto facts = markdown_facts(markdown);
  CHECK(facts.size() > 300);
  const auto missing = missing_facts(markdown, text);
  INFO("facts of board.md missing from board.html: " << join(missing, " || "));
  CHECK(missing.empty());
  // The check is not blind: a line the page drops, a cell changed, a ledger item gone are each found.
  CHECK(!missing_facts(markdown + "\nNot trained under `paper`: X − Y on imdb.\n", text).empty());
  CHECK(!missing_facts(markdown, std::regex_replace(text, std::regex("75\\.57 ± 0\\.43 \\(n = 5\\) outside"), ""))
             .empty());
  CHECK(!missing_facts(markdown, std::regex_replace(text, std::regex("L4 \\(paper"), "")).empty());

  // What the issue found missing from the page, each by name: the lines of what no reading trained (claim 6: IMDB
  // and AG News), the band in words with its rule, the ledger items in the page's text (not in hover titles) with
  // links from the cells, the per-cell table with the final epoch, the claims' other readings.
  CHECK_THAT(text, Contains("Not trained under paper: DGT x2 − Transformer on imdb;"));
  CHECK_THAT(text, Contains("DGT x16/3 − Transformer on ag_news."));
  CHECK_THAT(text, Contains("75.57 ± 0.43 (n = 5) outside paper 72.18 ± 0.51 (L4, L16, L17, L18)"));
  CHECK_THAT(text, Contains("within means ours lies within the paper's band, |Δ| ≤ 2·max(std_ours, std_paper) + 0.5"));
  CHECK_THAT(text, Contains("L4 (paper, table2/paper) weight decay: Rotten Tomatoes is judged on table2/weight_decay: "
                            "all seven rows"));
  CHECK_THAT(html, Contains("<li id=\"L4\">") && Contains("<a href=\"#L4\">L4</a>"));
  CHECK(html.find(" title=\"") == std::string::npos);  // nothing only on hover
  CHECK_THAT(text, Contains("Transformer rotten_tomatoes 75.57 ± 0.43 (n = 5) 74.60 ± 0.69 (n = 5) 72.18 ± 0.51 "
                            "+3.39 outside paper table2/weight_decay: Transformer+no_decay=paper (CPU) L4, L16, L17, "
                            "L18"));
  CHECK_THAT(text, Contains("paper; also paper_table6: contradicted (final: contradicted)"));
  // No test text, no script: the browser test brings its own probe.
  CHECK(html.find("figures loaded") == std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("http://") == html.find("http://www.w3.org/2000/svg"));  // no network: only the SVG namespace
  CHECK(html.find("https://") == std::string::npos);
}

TEST_CASE("the claims board's page in headless Chromium: figures, board.md's facts, 800 and 1400 px", "[report]") {
  const std::string browser = chromium();
  if (browser.empty()) {
    if (std::getenv("REPRO_REQUIRE_BROWSER"))
      FAIL(
          "REPRO_REQUIRE_BROWSER is set but no Chromium is on PATH (scripts/install-packages bookworm --with-browser)");
    WARN("no Chromium on PATH (scripts/install-packages bookworm --with-browser): the browser check is skipped");
    return;
  }
  const PaperFile file = read_paper_file(kPagePaper);
  const Board board = committed_board(file);
  const std::string markdown = board_markdown(board), html = board_html(board);
  test::TempDir dir("board-page");
  const fs::path page = dir.path() / "board.html", probe = dir.path() / "probe.html";
  write_file_atomic(page, html);
  std::string probed = html;
  probed.insert(probed.rfind("</body>"), kProbe);
  write_file_atomic(probe, probed);
  const std::string flags = " --headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=5000";
  const auto dom = test::run_command("timeout 120 " + browser + flags + " --window-size=800,2000 --dump-dom file://" +
                                     probe.string() + " 2>/dev/null");
  REQUIRE(dom.exit_code == 0);
  std::smatch found;
  REQUIRE(std::regex_search(dom.output, found, std::regex("<pre id=\"probe\">([^<]*)</pre>")));
  const std::string seen = entities_decoded(found[1].str());
  const size_t figures = test::count_of(html, "<img class=\"figure\"");
  CHECK(figures >= 3);  // claims 4 and 6, Table 2
  CHECK_THAT(seen, Contains("figures: " + std::to_string(figures) + " of " + std::to_string(figures) + "\n"));
  std::smatch width;
  REQUIRE(std::regex_search(seen, width, std::regex("width: ([0-9]+) of ([0-9]+)")));
  CHECK(std::stoi(width[1]) <= std::stoi(width[2]));  // nothing runs off an 800 px window
  std::smatch split;                                  // issue 64: "[-0.74, +" / "2.09]" at 800 px
  REQUIRE(std::regex_search(seen, split, std::regex("intervals split: ([0-9]+) of ([0-9]+)")));
  CHECK(split[1] == "0");
  CHECK(std::stoi(split[2]) >= 10);  // the claims' comparisons with a test
  const auto missing = missing_facts(markdown, collapsed(seen));
  INFO("facts of board.md the browser does not show: " << join(missing, " || "));
  CHECK(missing.empty());

  // Screenshots to look at: REPRO_BOARD_SCREENSHOTS=DIR keeps them (board-800.png, board-1400.png).
  const char* keep = std::getenv("REPRO_BOARD_SCREENSHOTS");
  for (const int px : {800, 1400}) {
    const fs::path shot = (keep ? fs::path(keep) : dir.path()) / ("board-" + std::to_string(px) + ".png");
    const auto taken =
        test::run_command("timeout 120 " + browser + flags + " --window-size=" + std::to_string(px) +
                          ",6000 --screenshot=" + shot.string() + " file://" + page.string() + " 2>/dev/null");
    CHECK(taken.exit_code == 0);
    REQUIRE(fs::exists(shot));
    CHECK(png_width(shot) == static_cast<uint32_t>(px));
    CHECK(fs::file_size(shot) > 100000);
  }
}

// Issue 64, item 7: at 800 px and in print an interval's "+" wrapped away from its number ("[-0.74, +" / "2.09]"): the
// page allowed a line break after every "+". An interval is one unbreakable piece; a sign stays with its number.
TEST_CASE("board.html keeps each confidence interval whole", "[report]") {
  const PaperFile file = read_paper_file(kPagePaper);
  const std::string html = board_html(committed_board(file));
  CHECK_THAT(html, Contains("<span class=\"ci\">[-0.74, +2.09]</span>"));
  CHECK_THAT(html, Contains(".ci{white-space:nowrap}"));
  CHECK(html.find("+<wbr>2") == std::string::npos);
  CHECK(html.find("+<wbr>0") == std::string::npos);
  CHECK_THAT(html, Contains("Transformer+<wbr>no_<wbr>decay=<wbr>paper"));  // a long name still wraps
}

// Issue 64, item 8: the "Not trained under …" line of a claim that lists exactly one untested comparison could be
// dropped (a mutant of `if (!untested.empty())`) with every test passing.
TEST_CASE("a claim with exactly one untested comparison says so, in board.md and on the page", "[report]") {
  PaperFile file = read_paper_file(kPagePaper);
  Claim& rotten = file.claims[5];  // DGT improves on the Transformer: here on Rotten Tomatoes (trained) and IMDB (not)
  rotten.pairs = {{"DGT x2", "Transformer"}};
  rotten.datasets = {"rotten_tomatoes", "imdb"};
  const Board board = committed_board(file);
  const std::string line = "Not trained under `paper`: DGT x2 − Transformer on imdb.";
  const std::string markdown = board_markdown(board);
  CHECK_THAT(markdown, Contains("\n" + line + "\n"));
  CHECK_THAT(page_text(board_html(board)), Contains("Not trained under paper: DGT x2 − Transformer on imdb."));
}
