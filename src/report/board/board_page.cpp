// The claims board's blocks: its coverage, the claims (verdicts, readings, comparisons, what no reading trained),
// each table (ours against the paper's, the band rule, reference rows, the trained cells, the ledger items its
// cells are marked with), the records not counted, the GPU records' side notes and the folders not judged.
#include "report/board/board_page.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "record/run_id.h"
#include "report/claims/ledger.h"
#include "report/figures/palette.h"
#include "report/tables/table.h"
#include "util/strings.h"

namespace repro {

namespace {

// "75.57 ± 0.43 (n = 5)"; one run: "73.64 (n = 1)"; with runs not counted: "66.42 (n = 1; 1 corrupt)"; none
// counted: "— (n = 0; 2 corrupt)".
std::string sample_text(const SampleSummary& s, const std::string& not_counted = "") {
  return (s.n == 0 ? "—" : format_double(s.mean, "%.2f")) + (s.n >= 2 ? " ± " + format_double(s.std, "%.2f") : "") +
         " (n = " + std::to_string(s.n) + (not_counted.empty() ? "" : "; " + not_counted) + ")";
}

std::string paper_text(const PaperCell& cell) {
  return format_double(cell.mean, "%.2f") + " ± " + format_double(cell.std, "%.2f");
}

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
    if (counts.verdicts.count(v)) parts.push_back(std::to_string(counts.verdicts.at(v)) + " " + name_of(v));
  return join(parts, ", ");
}

std::string ledger_id(size_t index) { return "L" + std::to_string(index + 1); }

// "[L4](#L4), [L16](#L16)": the cell's ledger items, each a link to its line under the table.
std::string ledger_marks(const BoardCell& cell) {
  std::vector<std::string> marks;
  for (const size_t i : cell.ledger) marks.push_back("[" + ledger_id(i) + "](#" + ledger_id(i) + ")");
  return join(marks, ", ");
}

PageBlock page_heading(int level, const std::string& text, const std::string& id = "") {
  PageBlock b;
  b.kind = PageBlock::Kind::Heading, b.level = level, b.text = text, b.id = id;
  return b;
}

PageBlock paragraph(const std::string& text) {
  PageBlock b;
  b.kind = PageBlock::Kind::Paragraph, b.text = text;
  return b;
}

PageBlock page_table(const std::string& css, const std::vector<std::string>& header) {
  PageBlock b;
  b.kind = PageBlock::Kind::Table, b.css = css;
  b.rows.emplace_back();
  for (const auto& h : header) b.rows.back().push_back({h, "", ""});
  return b;
}

std::vector<PageCell> plain_row(const std::vector<std::string>& cells) {
  std::vector<PageCell> row;
  for (const auto& c : cells) row.push_back({c, "", ""});
  return row;
}

PageBlock list(const std::vector<std::pair<std::string, std::string>>& items) {
  PageBlock b;
  b.kind = PageBlock::Kind::List, b.items = items;
  return b;
}

void add_figure(std::vector<PageBlock>& page, const PageFigure& figure) {
  if (figure.svg.empty()) return;
  PageBlock b;
  b.kind = PageBlock::Kind::Figure, b.figure = figure;
  page.push_back(b);
}

// Why no reading judged a claim: its comparisons' sides whose records are none counted, "" when there are none.
std::string uncounted_sides(const BoardClaim& c) {
  std::vector<std::string> sides;
  for (const auto& r : c.readings)
    for (const auto& side : r.uncounted)
      if (!side.empty()) add_unique(sides, side);
  return join(sides, "; ");
}

std::vector<PageCell> claim_row(size_t index, const BoardClaim& c) {
  const std::string uncounted = uncounted_sides(c);
  std::string final_verdict = "—",
              where = uncounted.empty() ? "no reading trained" : "not judged: records not counted: " + uncounted;
  for (const auto& r : c.readings)
    if (r.reading == c.verdict_reading) {
      final_verdict = name_of(r.last.verdict);
      where = "`" + r.reading + "`";
    }
  std::vector<std::string> others;
  for (const auto& r : c.readings)
    if (r.reading != c.verdict_reading && r.selected.verdict != Verdict::NotTested)
      others.push_back("`" + r.reading + "`: " + name_of(r.selected.verdict) + " (final: " + name_of(r.last.verdict) +
                       ")");
  if (!others.empty()) where += "; also " + join(others, "; ");
  return plain_row({std::to_string(index + 1), markdown_cell(c.claim->text), markdown_cell(c.claim->source),
                    "**" + name_of(c.verdict) + "**", final_verdict, where, name_of(c.paper.verdict)});
}

std::string power_text(const ComparisonVerdict& c) { return c.power ? format_double(100 * *c.power, "%.0f%%") : "—"; }

void claim_details(std::vector<PageBlock>& page, size_t index, const BoardClaim& c) {
  bool headed = false;
  for (const auto& r : c.readings) {
    const bool any_uncounted =
        std::any_of(r.uncounted.begin(), r.uncounted.end(), [](const std::string& u) { return !u.empty(); });
    if (r.selected.verdict == Verdict::NotTested && !any_uncounted) continue;
    if (!headed) {
      page.push_back(page_heading(4, "Claim " + std::to_string(index + 1) + ": " + c.claim->text,
                                  "claim-" + std::to_string(index + 1)));
      page.push_back(
          paragraph("Needs row − over > " + format_double(c.claim->margin, "%g") + " (" + c.claim->where + ")."));
      add_figure(page, claim_figure(index, c));
      headed = true;
    }
    page.push_back(paragraph("Under `" + r.reading + "`: **" + name_of(r.selected.verdict) +
                             "** at the selected epoch, " + name_of(r.last.verdict) + " at the final epoch."));
    PageBlock t = page_table("comparisons", {"row − over", "dataset", "where", "Δ [95% CI], selected epoch", "",
                                             "power", "Δ [95% CI], final epoch", "", "paper's Δ"});
    std::vector<std::string> untested;
    std::vector<std::pair<std::string, std::vector<std::string>>> uncounted;  // why -> the comparisons it leaves
    for (size_t i = 0; i < r.selected.comparisons.size(); ++i) {
      const ComparisonVerdict &s = r.selected.comparisons[i], &l = r.last.comparisons[i];
      const std::string pair = s.pair.row + " − " + s.pair.over;
      if (!s.test && !r.uncounted[i].empty()) {
        auto why =
            std::find_if(uncounted.begin(), uncounted.end(), [&](const auto& u) { return u.first == r.uncounted[i]; });
        if (why == uncounted.end()) why = uncounted.insert(uncounted.end(), {r.uncounted[i], {}});
        why->second.push_back(pair + " on " + s.dataset);
        continue;
      }
      if (!s.test) {
        untested.push_back(pair + " on " + s.dataset);
        continue;
      }
      t.rows.push_back(plain_row({pair, s.dataset, markdown_cell(r.sources[i]), comparison_text(s), name_of(s.verdict),
                                  power_text(s), comparison_text(l), name_of(l.verdict),
                                  s.expected ? format_double(*s.expected, "%+.2f") : "—"}));
    }
    if (t.rows.size() > 1) page.push_back(t);
    for (const auto& [why, pairs] : uncounted)
      page.push_back(paragraph("Not judged under `" + r.reading + "`: " + join(pairs, "; ") +
                               ": records not counted: " + markdown_cell(why) + "."));
    if (!untested.empty())
      page.push_back(paragraph("Not trained under `" + r.reading + "`: " + join(untested, "; ") + "."));
  }
}

PageBlock table_grid(const BoardTable& t) {
  std::vector<std::string> rows, columns;
  for (const auto& cell : t.cells) add_unique(rows, cell.paper->row), add_unique(columns, cell.paper->column);
  std::vector<std::string> header = {"model"};
  header.insert(header.end(), columns.begin(), columns.end());
  PageBlock grid = page_table("cells", header);
  for (const auto& row : rows) {
    std::vector<PageCell> line = {{row, "row", palette_hex(row_colour(row))}};
    for (const auto& column : columns) {
      const auto cell = std::find_if(t.cells.begin(), t.cells.end(), [&](const BoardCell& c) {
        return c.paper->row == row && c.paper->column == column;
      });
      if (cell == t.cells.end()) {
        line.push_back({"", "", ""});
        continue;
      }
      const std::string ours = cell->uncounted ? sample_text(cell->uncounted->selected, cell->uncounted->not_counted)
                               : !cell->source ? "not trained"
                                               : sample_text(cell->source->selected, cell->source->not_counted) +
                                                     (cell->status == CellStatus::Within ? " within" : " **outside**");
      const std::string marks = ledger_marks(*cell);
      const char* css = cell->status == CellStatus::NotTrained ? "not-trained"
                        : cell->status == CellStatus::Within   ? "within"
                                                               : "outside";
      line.push_back(
          {ours + "<br>paper " + paper_text(*cell->paper) + (marks.empty() ? "" : " (" + marks + ")"), css, ""});
    }
    grid.rows.push_back(line);
  }
  return grid;
}

// What the grid's words mean: the band rule, and the marks.
std::string band_legend(const BoardTable& t) {
  std::string mark;  // the table's first ledger mark, as an example
  for (const auto& cell : t.cells)
    if (mark.empty() && !cell.ledger.empty()) mark = ledger_id(cell.ledger.front());
  return "Reading the table: *within* means ours lies within the paper's band, |Δ| ≤ 2·max(std_ours, std_paper) + "
         "0.5 points with Δ = ours − paper at the selected epoch (std_ours counts as 0 when n = 1); **outside** means "
         "it does not; *not trained* means no run under the table's readings." +
         (mark.empty() ? ""
                       : " " + mark +
                             " and the like: the protocol ledger's items that touch the cell, listed "
                             "under the table.");
}

void reference_rows(std::vector<PageBlock>& page, const BoardTable& t) {
  if (t.references.empty()) return;
  page.push_back(paragraph(
      "Reference rows (not in the paper; shown beside it, never compared with its cells; a swept row at the value "
      "with the best mean validation accuracy, the first in the sweep's order on a tie):"));
  PageBlock rows = page_table(
      "references", {"row", "dataset", "ours, selected epoch", "final epoch", "chosen on validation", "where"});
  std::vector<const ReferenceRow*> shown;
  for (const auto& r : t.references) {
    std::string chosen = "—";
    if (!r.chosen.empty()) {
      chosen = r.chosen + " (best mean val_acc of " + std::to_string(r.candidates);
      if (!r.tied.empty()) chosen += "; tied with " + join(r.tied, ", ") + ", taken first in the sweep's order";
      chosen += ")";
    }
    rows.rows.push_back(plain_row({r.reference->row, r.column, sample_text(r.source.selected, r.source.not_counted),
                                   sample_text(r.source.last), chosen,
                                   markdown_cell(r.source.folder->name + " (" + r.source.devices + ")")}));
    if (std::find(shown.begin(), shown.end(), r.reference) == shown.end()) shown.push_back(r.reference);
  }
  page.push_back(rows);
  for (const ReferenceRow* reference : shown) page.push_back(paragraph("*" + reference->row + "*: " + reference->what));
}

void trained_cells(std::vector<PageBlock>& page, const BoardTable& t) {
  PageBlock cells = page_table("trained", {"model", "dataset", "ours, selected epoch", "final epoch", "paper", "Δ",
                                           "reading", "where", "ledger"});
  std::vector<std::pair<std::string, std::string>> also;
  for (const auto& cell : t.cells) {
    if (!cell.source) continue;
    const CellSource& s = *cell.source;
    cells.rows.push_back(
        plain_row({cell.paper->row, cell.paper->column, sample_text(s.selected, s.not_counted), sample_text(s.last),
                   paper_text(*cell.paper),
                   format_double(s.selected.mean - cell.paper->mean, "%+.2f") +
                       (cell.status == CellStatus::Outside ? " **outside**" : " within"),
                   "`" + cell.reading + "`", markdown_cell(cell_source_text(s, cell.paper->row)), ledger_marks(cell)}));
    for (const auto& other : cell.also)
      also.push_back({"", cell.paper->row + " on " + cell.paper->column + ": " +
                              cell_source_text(other, cell.paper->row) + " under `" + other.reading +
                              "`, " + sample_text(other.selected, other.not_counted) + " (final epoch " +
                              sample_text(other.last) + ")"});
  }
  if (cells.rows.size() < 2) return;
  page.push_back(cells);
  if (also.empty()) return;
  page.push_back(
      paragraph("The same cells in other folders (not counted above: a folder's plain row before a swept "
                "one, then the most runs):"));
  page.push_back(list(also));
}

// The ledger items the table's cells are marked with, under it; `listed` keeps each item's anchor to its first line.
void table_ledger(std::vector<PageBlock>& page, const Board& board, const BoardTable& t, std::vector<size_t>& listed) {
  std::vector<size_t> used;
  for (const auto& cell : t.cells)
    for (const size_t i : cell.ledger)
      if (std::find(used.begin(), used.end(), i) == used.end()) used.push_back(i);
  std::sort(used.begin(), used.end());
  if (used.empty()) return;
  page.push_back(paragraph("The protocol ledger's items marked beside the cells of Table " +
                           std::to_string(t.paper->number) +
                           " (a *differs* item touches every cell of its reading unless it names its columns; any "
                           "other item only the columns it names):"));
  std::vector<std::pair<std::string, std::string>> items;
  for (const size_t i : used) {
    const LedgerItem& item = board.file->ledger[i];
    const bool first = std::find(listed.begin(), listed.end(), i) == listed.end();
    listed.push_back(i);
    items.push_back({first ? ledger_id(i) : "", ledger_id(i) + " (" + name_of(item.status) + ", `" +
                                                    RunId::folder_of(item.experiment, item.profile) + "`) " +
                                                    item.item + ": " +
                                                    markdown_cell(item.note.empty() ? item.ours : item.note)});
  }
  page.push_back(list(items));
}

void bad_records_list(std::vector<PageBlock>& page, const Board& board) {
  if (board.bad_records.empty()) return;
  page.push_back(
      paragraph("Records not counted in the folders judged (corrupt, of a newer repro, inconsistent or a "
                "link; the cells above count the others):"));
  std::vector<std::pair<std::string, std::string>> items;
  for (const auto& line : board.bad_records) items.push_back({"", markdown_cell(line)});
  page.push_back(list(items));
}

void lease_notes_list(std::vector<PageBlock>& page, const Board& board) {
  if (board.lease_notes.empty()) return;
  page.push_back(paragraph(
      "GPU records that name no GPU and no precision (repro before 0.7.0 wrote `cuda:0` only; the cells say "
      "\"GPU\"). What the side files beside them say, matched by the records' commit, is not from the records:"));
  std::vector<std::pair<std::string, std::string>> items;
  for (const auto& n : board.lease_notes)
    items.push_back({"", n.folder + ", " + std::to_string(n.runs) + (n.runs == 1 ? " run" : " runs") + " of commit " +
                             n.commit + " (repro " + n.versions +
                             "): " + (n.gpu.empty() ? "no side file names its GPU" : n.gpu + " (" + n.file + ")") +
                             "; train.precision `" + n.precision + "` in its spec.resolved.yaml" +
                             (n.precision == "auto" ? " (bf16 autocast on CUDA, docs/performance.md)" : "")});
  page.push_back(list(items));
}

std::string unjudged_folders(const Board& board) {
  std::vector<std::string> names;
  for (const auto& folder : board.folders)
    if (!is_judged_folder(board, folder))
      add_unique(names, folder.name + " (" + folder.selected.name +
                            (folder.selected.profile.empty() ? "" : ", " + folder.selected.profile) + ")");
  if (names.empty()) return "";
  return "Folders below `" + board.root.filename().string() +
         "` that no table lists as a reading of the paper's protocol (CPU budgets, probes, other experiments; "
         "their own report.md judges them): " +
         join(names, ", ") + ".";
}

}  // namespace

std::string without_links(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const size_t close = text[i] == '[' ? text.find("](#", i) : std::string::npos;
    const size_t end = close == std::string::npos ? std::string::npos : text.find(')', close);
    if (end == std::string::npos) {
      out += text[i];
      continue;
    }
    out += text.substr(i + 1, close - i - 1);
    i = end;
  }
  return out;
}

std::string board_coverage(const Board& board) {
  const BoardCounts c = board_counts(board);
  return "Of the paper's " + std::to_string(c.cells) + " accuracy cells (" + tables_named(board) + "), " +
         std::to_string(c.trained) + " are trained under its protocol: " + std::to_string(c.within) +
         " land within the paper's band (|Δ| ≤ 2·max(std) + 0.5), " + std::to_string(c.outside) + " outside; " +
         std::to_string(c.cells - c.trained) + " are not trained yet" +
         (c.uncounted ? " (" + std::to_string(c.uncounted) + " of them with records none of which is counted)" : "") +
         ". Of its " + std::to_string(c.claims) + " claims: " + verdict_counts(c) +
         " (at the selected epoch; the claims board in results/README.md).\n";
}

std::vector<PageBlock> board_page(const Board& board) {
  std::vector<PageBlock> page;
  page.push_back(page_heading(2, "The claims board: " + board.file->paper));
  page.push_back(paragraph(trim(board_coverage(board))));
  std::vector<std::string> readings;
  bool names_settings = false;
  for (const auto& t : board.tables)
    for (const auto& r : t.paper->readings) {
      names_settings |= !r.settings.empty();
      readings.push_back("Table " + std::to_string(t.paper->number) + ": " + reading_label(r) + ", " + r.what);
    }
  page.push_back(paragraph(
      "Written by `" + board.command + "` from the run records of " + std::to_string(board.folders.size()) +
      " results folders (docs/report.md, \"The claims board\"); also as one page with figures, `board.html`. A "
      "claim and a cell are judged only on runs of the profiles the paper file lists as readings of the paper's "
      "protocol" +
      (names_settings ? std::string(", and of those only the runs with the settings a reading names") : "") + " (" +
      join(readings, "; ") +
      "); a claim's verdict is that of its table's first reading with runs, at the selected epoch (the best "
      "validation epoch), with the final epoch beside it."));
  page.push_back(page_heading(3, "The paper's claims", "claims"));
  PageBlock claims = page_table("claims", {"#", "claim", "where in the paper", "verdict", "at the final epoch",
                                           "reading", "the paper's own numbers"});
  for (size_t i = 0; i < board.claims.size(); ++i) claims.rows.push_back(claim_row(i, board.claims[i]));
  page.push_back(claims);
  for (size_t i = 0; i < board.claims.size(); ++i) claim_details(page, i, board.claims[i]);
  std::vector<size_t> listed;
  for (const auto& t : board.tables) {
    page.push_back(page_heading(3,
                                "Table " + std::to_string(t.paper->number) + " (" + name_of(t.paper->metric) +
                                    "): ours (selected epoch) against the paper's (n = " + std::to_string(t.paper->n) +
                                    ")",
                                "table-" + std::to_string(t.paper->number)));
    add_figure(page, table_figure(t));
    page.push_back(table_grid(t));
    bool any = false;
    for (const auto& cell : t.cells) any |= cell.source.has_value();
    if (any) page.push_back(paragraph(band_legend(t)));
    reference_rows(page, t);
    trained_cells(page, t);
    table_ledger(page, board, t, listed);
  }
  bad_records_list(page, board);
  lease_notes_list(page, board);
  const std::string unjudged = unjudged_folders(board);
  if (!unjudged.empty()) page.push_back(paragraph(unjudged));
  return page;
}

}  // namespace repro
