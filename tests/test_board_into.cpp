// The board's --into files (issue 57): each file's markers are exactly one begin and one end per pair, on lines of
// their own outside code blocks, the pairs apart, or the file is refused naming the lines and left as it was; every
// --into file is checked before any file (board.md, board.html, the others) is written; a missing one is "no such
// file".
#include <filesystem>
#include <string>

#include "catch.h"
#include "fixtures.h"
#include "report/board/board.h"
#include "run_repro.h"
#include "util/error.h"
#include "util/files.h"

using namespace repro;
using repro::test::Contains;
namespace fs = std::filesystem;

namespace {

const fs::path kIntoPaper = fs::path(REPRO_SOURCE_DIR) / "experiments/paper/dgsa.yaml";
const fs::path kIntoResults = fs::path(REPRO_SOURCE_DIR) / "results";

const std::string kBegin = "<!-- repro board: begin -->\n", kEnd = "<!-- repro board: end -->\n";
const std::string kCover = "<!-- repro board: coverage -->\n", kCoverEnd = "<!-- repro board: coverage end -->\n";

std::string board_command(const fs::path& dir, const std::string& intos) {
  return "report " + kIntoResults.string() + " --board " + kIntoPaper.string() + " -o " + (dir / "board.md").string() +
         intos;
}

}  // namespace

TEST_CASE("an --into file's markers: one begin and one end per pair, outside code blocks, or refused", "[report]") {
  test::TempDir dir("board-markers");
  const fs::path file = dir.path() / "into.md";
  const auto into = [&](const std::string& text) {
    test::write_text(file, text);
    return board_into_text(file, "BOARD\n", "COVERAGE\n");
  };
  const auto refused = [&](const std::string& text, const std::string& message) {
    INFO(text);
    test::write_text(file, text);
    try {
      board_into_text(file, "BOARD\n", "COVERAGE\n");
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK_THAT(e.what(), Contains("--into " + file.string() + ": ") && Contains(message));
    }
    CHECK(read_file(file) == text);  // left as it was
  };
  // Both pairs, and either alone.
  CHECK(into("# A\n" + kCover + "old\n" + kCoverEnd + "\ntext\n" + kBegin + "old\nold\n" + kEnd + "tail\n") ==
        "# A\n" + kCover + "COVERAGE\n" + kCoverEnd + "\ntext\n" + kBegin + "BOARD\n" + kEnd + "tail\n");
  CHECK(into(kBegin + kEnd) == kBegin + "BOARD\n" + kEnd);
  CHECK(into("x\n  " + kCover + "y\n" + kCoverEnd) == "x\n  " + kCover + "COVERAGE\n" + kCoverEnd);
  // A begin marker quoted in a code block before the real pair, and markers quoted within a line, are text.
  const std::string quoted = "```\n" + kBegin + "```\nsay `<!-- repro board: end -->` here\n" + kBegin + "old\n" + kEnd;
  CHECK(into(quoted) == "```\n" + kBegin + "```\nsay `<!-- repro board: end -->` here\n" + kBegin + "BOARD\n" + kEnd);
  CHECK(into("~~~~md\n" + kEnd + "~~~\n" + kBegin + "~~~~\n" + kBegin + kEnd) ==
        "~~~~md\n" + kEnd + "~~~\n" + kBegin + "~~~~\n" + kBegin + "BOARD\n" + kEnd);
  // Refused, naming the lines.
  refused(kBegin + kBegin + "x\n" + kEnd,
          "'<!-- repro board: begin -->' on lines 1 and 2 and '<!-- repro board: end -->' on line 4: expected one "
          "of each, the begin first");
  refused(kBegin + "a\n" + kEnd + kBegin + "b\n" + kEnd,
          "on lines 1 and 4 and '<!-- repro board: end -->' on lines 3 and 6");
  refused(kBegin + kBegin + kEnd + kEnd, "on lines 1 and 2 and '<!-- repro board: end -->' on lines 3 and 4");
  refused(kEnd + "x\n" + kBegin, "on line 3 and '<!-- repro board: end -->' on line 1");
  refused("# nothing\n" + kBegin, "on line 2 and '<!-- repro board: end -->' on no line");
  refused("```\n" + kBegin + "```\n" + kEnd, "on no line and '<!-- repro board: end -->' on line 4");
  refused(kBegin + kCover + kCoverEnd + kEnd,
          "the board's markers (lines 1–4) and the coverage markers (lines 2–3) "
          "overlap");
  refused(kCover + kBegin + kCoverEnd + kEnd, "overlap");
  refused("# nothing here\n", "no '<!-- repro board: begin -->'");
  refused("```\n" + kBegin + kEnd + "```\n", "no '<!-- repro board: begin -->'");
  // Not a file to write into.
  const fs::path missing = dir.path() / "absent.md";
  CHECK_THROWS_WITH(board_into_text(missing, "B\n", "C\n"), Contains("--into " + missing.string() + ": no such file"));
  CHECK_THROWS_WITH(board_into_text(dir.path(), "B\n", "C\n"), Contains(": not a regular file"));
}

TEST_CASE("repro report --board writes board.md, board.html and the markers of each --into file", "[report][cli]") {
  test::TempDir dir("board-cli");
  const fs::path readme = dir.path() / "README.md", results_readme = dir.path() / "results.md";
  test::write_text(readme, "# repro\n\nintro\n" + kCover + "old\n" + kCoverEnd + "\n## Quick start\n");
  test::write_text(results_readme, "# Results\n\n" + kBegin + "old\n" + kEnd + "\nmore\n");
  const auto run =
      test::run_repro(board_command(dir.path(), " --into " + readme.string() + " --into " + results_readme.string()));
  REQUIRE(run.exit_code == 0);
  const std::string board = read_file(dir.path() / "board.md");
  CHECK_THAT(board, Contains("## The claims board: "));
  CHECK(fs::file_size(dir.path() / "board.html") > 10000);
  const std::string top = read_file(readme);
  CHECK_THAT(top, Contains("intro\n" + kCover + "Of the paper's 44 accuracy cells"));
  CHECK_THAT(top, Contains(kCoverEnd + "\n## Quick start\n"));
  CHECK(top.find("old") == std::string::npos);
  CHECK_THAT(read_file(results_readme), Contains(kBegin + board + kEnd + "\nmore\n"));

  // Every --into file is checked before any file is written: the second one's duplicated marker refuses the
  // command, and board.md, board.html and the first file stay as they were.
  test::TempDir again("board-cli-refused");
  const fs::path good = again.path() / "good.md", bad = again.path() / "bad.md";
  test::write_text(good, kBegin + "old\n" + kEnd);
  test::write_text(bad, kBegin + kBegin + "old\n" + kEnd);
  const auto refused =
      test::run_repro(board_command(again.path(), " --into " + good.string() + " --into " + bad.string()));
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.output, Contains("--into " + bad.string() + ": '<!-- repro board: begin -->' on lines 1 and 2"));
  CHECK(read_file(good) == kBegin + "old\n" + kEnd);
  CHECK(read_file(bad) == kBegin + kBegin + "old\n" + kEnd);
  CHECK(!fs::exists(again.path() / "board.md"));
  CHECK(!fs::exists(again.path() / "board.html"));
  // A missing --into file: "no such file", nothing written either.
  const auto absent = test::run_repro(
      board_command(again.path(), " --into " + good.string() + " --into " + (again.path() / "absent.md").string()));
  CHECK(absent.exit_code == 2);
  CHECK_THAT(absent.output, Contains("--into " + (again.path() / "absent.md").string() + ": no such file"));
  CHECK(!fs::exists(again.path() / "board.md"));

  const auto alone =
      test::run_repro("report " + kIntoResults.string() + " --board " + kIntoPaper.string() + " --stats");
  CHECK(alone.exit_code != 0);
  CHECK_THAT(alone.output, Contains("--board"));
}

// Issue 64, item 6: with a second --into file that cannot be written, the command exited 2 after writing board.md,
// board.html and the first --into file. Every file is now written to its temporary sibling first and renamed into
// place only when all are written.
TEST_CASE("repro report --board whose last --into file cannot be written writes no file", "[report][cli]") {
  test::TempDir dir("board-cli-unwritable");
  const fs::path good = dir.path() / "good.md", blocked = dir.path() / "blocked.md";
  test::write_text(good, kBegin + "old\n" + kEnd);
  test::write_text(blocked, kBegin + "old\n" + kEnd);
  // blocked.md's temporary sibling (blocked.md.tmp-<pid>) is a folder that holds a file: it cannot be created, as in a
  // read-only folder (which root may write to). `exec` keeps the shell's pid for repro.
  const std::string command = "mkdir -p " + blocked.string() + ".tmp-$$/x && exec " + std::string(REPRO_BINARY) + " " +
                              board_command(dir.path(), " --into " + good.string() + " --into " + blocked.string());
  const auto refused = test::run_command(command);
  INFO(refused.output);
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.output, Contains("cannot write " + blocked.string()) && Contains("nothing was written"));
  CHECK(read_file(good) == kBegin + "old\n" + kEnd);
  CHECK(read_file(blocked) == kBegin + "old\n" + kEnd);
  CHECK(!fs::exists(dir.path() / "board.md"));
  CHECK(!fs::exists(dir.path() / "board.html"));
  CHECK(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()) == 3);  // no temporary file left
  // --html naming a folder: refused before anything is written.
  fs::create_directory(dir.path() / "page");
  const auto folder = test::run_repro(
      board_command(dir.path(), " --html " + (dir.path() / "page").string() + " --into " + good.string()));
  CHECK(folder.exit_code == 2);
  CHECK_THAT(folder.output, Contains((dir.path() / "page").string()) && Contains("it is a folder"));
  CHECK(read_file(good) == kBegin + "old\n" + kEnd);
  CHECK(!fs::exists(dir.path() / "board.md"));
}
