// The claims board as Markdown, its coverage paragraph, and both written between markers into a file.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "report/board.h"
#include "report/ledger.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace fs = std::filesystem;

namespace {

std::string md_fixed(double value, const char* format) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

// "75.57 ± 0.43 (n = 5)"; one run: "73.64 (n = 1)".
std::string md_sample(const SampleSummary& s) {
  return md_fixed(s.mean, "%.2f") + (s.n >= 2 ? " ± " + md_fixed(s.std, "%.2f") : "") + " (n = " + std::to_string(s.n) +
         ")";
}

std::string paper_text(const PaperCell& cell) { return md_fixed(cell.mean, "%.2f") + " ± " + md_fixed(cell.std, "%.2f"); }

std::string tables_named(const Board& board) {
  std::vector<std::string> numbers;
  for (const auto& table : board.tables) numbers.push_back(std::to_string(table.paper->number));
  if (numbers.size() < 2) return "Table " + join(numbers, "");
  const std::string last = numbers.back();
  numbers.pop_back();
  return "Tables " + join(numbers, ", ") + " and " + last;
}

std::string verdict_counts(const BoardCounts& counts) {
  std::vector<std::string> parts;
  for (const Verdict v :
       {Verdict::Supported, Verdict::Contradicted, Verdict::NotReproduced, Verdict::Inconclusive, Verdict::NotTested})
    if (counts.verdicts.count(v)) parts.push_back(std::to_string(counts.verdicts.at(v)) + " " + verdict_name(v));
  return join(parts, ", ");
}

std::string ledger_marks(const BoardCell& cell) {
  std::vector<std::string> marks;
  for (const size_t i : cell.ledger) marks.push_back("L" + std::to_string(i + 1));
  return join(marks, ", ");
}

std::string claim_row(size_t index, const BoardClaim& c) {
  std::string final_verdict = "—", where = "no reading trained";
  for (const auto& r : c.readings)
    if (r.reading == c.verdict_reading) {
      final_verdict = verdict_name(r.last.verdict);
      where = "`" + r.reading + "`";
    }
  std::vector<std::string> others;
  for (const auto& r : c.readings)
    if (r.reading != c.verdict_reading && r.selected.verdict != Verdict::NotTested)
      others.push_back("`" + r.reading + "`: " + verdict_name(r.selected.verdict) + " (final: " +
                       verdict_name(r.last.verdict) + ")");
  if (!others.empty()) where += "; also " + join(others, "; ");
  return "| " + std::to_string(index + 1) + " | " + markdown_cell(c.claim->text) + " | " +
         markdown_cell(c.claim->source) + " | **" + verdict_name(c.verdict) + "** | " + final_verdict + " | " +
         where + " | " + verdict_name(c.paper.verdict) + " |\n";
}

std::string power_text(const ComparisonVerdict& c) { return c.power ? md_fixed(100 * *c.power, "%.0f%%") : "—"; }

std::string claim_details(size_t index, const BoardClaim& c) {
  std::string out;
  for (const auto& r : c.readings) {
    if (r.selected.verdict == Verdict::NotTested) continue;
    if (out.empty())
      out += "#### Claim " + std::to_string(index + 1) + ": " + c.claim->text + "\n\nNeeds row − over > " +
             md_fixed(c.claim->margin, "%g") + " (" + c.claim->where + ").\n\n";
    out += "Under `" + r.reading + "`: **" + verdict_name(r.selected.verdict) + "** at the selected epoch, " +
           verdict_name(r.last.verdict) + " at the final epoch.\n\n";
    out +=
        "| row − over | dataset | where | Δ [95% CI], selected epoch | | power | Δ [95% CI], final epoch | | "
        "paper's Δ |\n|---|---|---|---|---|---|---|---|---|\n";
    std::vector<std::string> untested;
    for (size_t i = 0; i < r.selected.comparisons.size(); ++i) {
      const ComparisonVerdict &s = r.selected.comparisons[i], &l = r.last.comparisons[i];
      const std::string pair = s.pair.row + " − " + s.pair.over;
      if (!s.test) {
        untested.push_back(pair + " on " + s.dataset);
        continue;
      }
      out += "| " + pair + " | " + s.dataset + " | " + markdown_cell(r.sources[i]) + " | " + comparison_text(s) +
             " | " + verdict_name(s.verdict) + " | " + power_text(s) + " | " + comparison_text(l) + " | " +
             verdict_name(l.verdict) + " | " + (s.expected ? md_fixed(*s.expected, "%+.2f") : "—") + " |\n";
    }
    if (!untested.empty()) out += "\nNot trained under `" + r.reading + "`: " + join(untested, "; ") + ".\n";
    out += "\n";
  }
  return out;
}

std::string table_grid(const BoardTable& t) {
  std::vector<std::string> rows, columns;
  for (const auto& cell : t.cells) add_unique(rows, cell.paper->row), add_unique(columns, cell.paper->column);
  std::string out = "| model |";
  for (const auto& column : columns) out += " " + column + " |";
  out += "\n|---|";
  for (size_t i = 0; i < columns.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& row : rows) {
    out += "| " + row + " |";
    for (const auto& column : columns) {
      const auto cell = std::find_if(t.cells.begin(), t.cells.end(), [&](const BoardCell& c) {
        return c.paper->row == row && c.paper->column == column;
      });
      if (cell == t.cells.end()) {
        out += " |";
        continue;
      }
      const std::string ours =
          !cell->source ? "not trained"
                        : md_sample(cell->source->selected) +
                              (cell->status == CellStatus::Within ? " within" : " **outside**");
      const std::string marks = ledger_marks(*cell);
      out += " " + ours + "<br>paper " + paper_text(*cell->paper) + (marks.empty() ? "" : " (" + marks + ")") + " |";
    }
    out += "\n";
  }
  return out;
}

std::string trained_cells(const Board& board, const BoardTable& t) {
  std::string out =
      "| model | dataset | ours, selected epoch | final epoch | paper | Δ | reading | where | ledger |\n"
      "|---|---|---|---|---|---|---|---|---|\n";
  std::string also;
  for (const auto& cell : t.cells) {
    if (!cell.source) continue;
    const CellSource& s = *cell.source;
    out += "| " + cell.paper->row + " | " + cell.paper->column + " | " + md_sample(s.selected) + " | " +
           md_sample(s.last) + " | " + paper_text(*cell.paper) + " | " +
           md_fixed(s.selected.mean - cell.paper->mean, "%+.2f") +
           (cell.status == CellStatus::Outside ? " **outside**" : " within") + " | `" + cell.reading + "` | " +
           markdown_cell(cell_source_text(s, cell.paper->row)) + " | " + ledger_marks(cell) + " |\n";
    for (const auto& other : cell.also)
      also += "- " + cell.paper->row + " on " + cell.paper->column + ": " +
              cell_source_text(other, cell.paper->row) + " under `" + other.folder->selected.profile + "`, " +
              md_sample(other.selected) + " (final epoch " + md_sample(other.last) + ")\n";
  }
  (void)board;
  if (!also.empty())
    out += "\nThe same cells in other folders (not counted above: a folder's plain row before a swept one, then "
           "the most runs):\n\n" + also;
  return out;
}

std::string ledger_legend(const Board& board) {
  std::vector<size_t> used;
  for (const auto& t : board.tables)
    for (const auto& cell : t.cells)
      for (const size_t i : cell.ledger)
        if (std::find(used.begin(), used.end(), i) == used.end()) used.push_back(i);
  std::sort(used.begin(), used.end());
  if (used.empty()) return "";
  std::string out = "The protocol ledger's items marked beside the cells (a *differs* item touches every cell of its "
                    "reading unless it names its columns; any other item only the columns it names):\n\n";
  for (const size_t i : used) {
    const LedgerItem& item = board.file->ledger[i];
    out += "- L" + std::to_string(i + 1) + " (" + name_of(item.status) + ", `" + item.experiment +
           (item.profile.empty() ? "" : "/" + item.profile) + "`) " + item.item + ": " +
           markdown_cell(item.note.empty() ? item.ours : item.note) + "\n";
  }
  return out + "\n";
}

std::string unjudged_folders(const Board& board) {
  std::vector<std::string> names;
  for (const auto& folder : board.folders) {
    bool judged = false;
    for (const auto& t : board.tables)
      for (const auto& r : t.paper->readings)
        judged |= t.paper->experiment == folder.selected.name && r.profile == folder.selected.profile &&
                  t.paper->metric == folder.selected.metric;
    if (!judged)
      add_unique(names, folder.name + " (" + folder.selected.name +
                            (folder.selected.profile.empty() ? "" : ", " + folder.selected.profile) + ")");
  }
  if (names.empty()) return "";
  return "Folders below `" + board.root.filename().string() +
         "` that no table lists as a reading of the paper's protocol (CPU budgets, probes, other experiments; "
         "their own report.md judges them): " + join(names, ", ") + ".\n";
}

}  // namespace

// The table's reference rows: ours only, never compared with the paper's cells.
std::string reference_rows(const BoardTable& t) {
  if (t.references.empty()) return "";
  std::string out =
      "Reference rows (not in the paper; shown beside it, never compared with its cells):\n\n"
      "| row | dataset | ours, selected epoch | final epoch | chosen on validation | where |\n"
      "|---|---|---|---|---|---|\n";
  std::vector<const ReferenceRow*> shown;
  for (const auto& r : t.references) {
    const std::string chosen =
        r.chosen.empty() ? "—" : r.chosen + " (best mean val_acc of " + std::to_string(r.candidates) + ")";
    out += "| " + r.reference->row + " | " + r.column + " | " + md_sample(r.source.selected) + " | " +
           md_sample(r.source.last) + " | " + chosen + " | " +
           markdown_cell(r.source.folder->name + " (" + r.source.devices + ")") + " |\n";
    if (std::find(shown.begin(), shown.end(), r.reference) == shown.end()) shown.push_back(r.reference);
  }
  out += "\n";
  for (const ReferenceRow* reference : shown) out += "*" + reference->row + "*: " + reference->what + "\n";
  return out + "\n";
}

std::string board_coverage(const Board& board) {
  const BoardCounts c = board_counts(board);
  return "Of the paper's " + std::to_string(c.cells) + " accuracy cells (" + tables_named(board) + "), " +
         std::to_string(c.trained) + " are trained under its protocol: " + std::to_string(c.within) +
         " land within the paper's band (|Δ| ≤ 2·max(std) + 0.5), " + std::to_string(c.outside) + " outside; " +
         std::to_string(c.cells - c.trained) + " are not trained yet. Of its " +
         std::to_string(c.claims) + " claims: " + verdict_counts(c) +
         " (at the selected epoch; the claims board in results/README.md).\n";
}

std::string board_markdown(const Board& board) {
  std::string out = "## The claims board: " + board.file->paper + "\n\n" + board_coverage(board) + "\n";
  out += "Written by `" + board.command + "` from the run records of " + std::to_string(board.folders.size()) +
         " results folders (docs/report.md, \"The claims board\"); also as one page with figures, `board.html`. A "
         "claim and a cell are judged only on runs of the profiles the paper file lists as readings of the "
         "paper's protocol (";
  std::vector<std::string> readings;
  for (const auto& t : board.tables)
    for (const auto& r : t.paper->readings)
      readings.push_back("Table " + std::to_string(t.paper->number) + ": `" + r.profile + "`, " + r.what);
  out += join(readings, "; ") +
         "); a claim's verdict is that of its table's first reading with runs, at the selected epoch (the best "
         "validation epoch), with the final epoch beside it.\n\n";
  out += "### The paper's claims\n\n| # | claim | where in the paper | verdict | at the final epoch | reading | the "
         "paper's own numbers |\n|---|---|---|---|---|---|---|\n";
  for (size_t i = 0; i < board.claims.size(); ++i) out += claim_row(i, board.claims[i]);
  out += "\n";
  for (size_t i = 0; i < board.claims.size(); ++i) out += claim_details(i, board.claims[i]);
  for (const auto& t : board.tables) {
    out += "### Table " + std::to_string(t.paper->number) + " (" + name_of(t.paper->metric) +
           "): ours (selected epoch) against the paper's (n = " + std::to_string(t.paper->n) + ")\n\n";
    out += table_grid(t) + "\n" + reference_rows(t);
    bool any = false;
    for (const auto& cell : t.cells) any |= cell.source.has_value();
    if (any) out += trained_cells(board, t) + "\n";
  }
  out += ledger_legend(board) + unjudged_folders(board);
  return out;
}

void write_board_into(const fs::path& file, const std::string& board_text, const std::string& coverage_text) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(file, ec)))
    throw Error("--into " + file.string() + ": not a regular file");
  std::string text = read_regular_file(file, kSpecBytes, "an --into file (Markdown with the board's markers)");
  int replaced = 0;
  const auto replace = [&](const std::string& begin, const std::string& end, const std::string& with) {
    const size_t a = text.find(begin), b = text.find(end);
    if (a == std::string::npos && b == std::string::npos) return;
    if (a == std::string::npos || b == std::string::npos || b < a)
      throw Error("--into " + file.string() + ": expected both '" + begin + "' and, after it, '" + end + "'");
    text.replace(a + begin.size(), b - a - begin.size(), "\n" + with);
    ++replaced;
  };
  replace("<!-- repro board: begin -->", "<!-- repro board: end -->", board_text);
  replace("<!-- repro board: coverage -->", "<!-- repro board: coverage end -->", coverage_text);
  if (replaced == 0)
    throw Error("--into " + file.string() +
                ": no '<!-- repro board: begin -->' … '<!-- repro board: end -->' or '<!-- repro board: coverage "
                "-->' … '<!-- repro board: coverage end -->' to replace");
  write_file_atomic(file, text);
}

}  // namespace repro
