// The claims board as one self-contained HTML page: the same tables as the Markdown, and SVG figures embedded as
// data: images (a forest plot per claim, ours against the paper per table), no script or style from the network.
// A small script at the end counts the figures the browser decoded into #figures-loaded (the browser test reads it).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/board.h"
#include "report/palette.h"
#include "report/plot.h"
#include "util/strings.h"

namespace repro {

namespace {

std::string html_fixed(double value, const char* format) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

std::string html_escape(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += ch;
    }
  }
  return out;
}

std::string base64(const std::string& bytes) {
  static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    for (int shift : {18, 12, 6, 0}) out += digits[(v >> shift) & 63];
  }
  if (i < bytes.size()) {
    unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += digits[(v >> 18) & 63];
    out += digits[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? digits[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string figure(const std::string& svg, const std::string& alt) {
  return "<figure><img class=\"figure\" alt=\"" + html_escape(alt) + "\" src=\"data:image/svg+xml;base64," + base64(svg) +
         "\"><figcaption>" + html_escape(alt) + "</figcaption></figure>\n";
}

// One horizontal interval per line of a dot-and-whisker figure.
struct Whisker {
  double centre = NAN, low = NAN, high = NAN;
  std::string colour;
  bool hollow = false, diamond = false;
};
struct FigureLine {
  std::string label;
  std::vector<Whisker> marks;
};

// A dot-and-whisker SVG: one line per label, the x axis shared, vertical reference lines at `references`.
std::string whisker_svg(const std::vector<FigureLine>& lines, const std::string& x_label,
                        const std::vector<std::pair<double, std::string>>& references) {
  double low = INFINITY, high = -INFINITY;
  for (const auto& line : lines)
    for (const auto& m : line.marks)
      for (const double v : {m.centre, m.low, m.high})
        if (std::isfinite(v)) low = std::min(low, v), high = std::max(high, v);
  for (const auto& r : references) low = std::min(low, r.first), high = std::max(high, r.first);
  if (!std::isfinite(low)) low = 0, high = 1;
  const double pad = std::max(0.5, (high - low) * 0.06);
  low -= pad, high += pad;
  const double left = 440, right = 1060, top = 20, row_height = 26;
  const double height = top + row_height * lines.size() + 50;
  const auto px = [&](double v) { return left + (v - low) / (high - low) * (right - left); };
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1080\" height=\"" + html_fixed(height, "%.0f") +
                    "\" font-family=\"sans-serif\" font-size=\"13\"><rect width=\"100%\" height=\"100%\" fill=\"white\"/>";
  const double bottom = top + row_height * lines.size();
  for (const double tick : nice_ticks(low, high, 8, false)) {
    svg += "<line x1=\"" + html_fixed(px(tick), "%.1f") + "\" y1=\"" + html_fixed(top, "%.0f") + "\" x2=\"" +
           html_fixed(px(tick), "%.1f") + "\" y2=\"" + html_fixed(bottom, "%.0f") + "\" stroke=\"#e4e4e4\"/>";
    svg += "<text x=\"" + html_fixed(px(tick), "%.1f") + "\" y=\"" + html_fixed(bottom + 16, "%.0f") +
           "\" text-anchor=\"middle\">" + format_number(tick) + "</text>";
  }
  for (const auto& [value, colour] : references)
    svg += "<line x1=\"" + html_fixed(px(value), "%.1f") + "\" y1=\"" + html_fixed(top - 6, "%.0f") + "\" x2=\"" +
           html_fixed(px(value), "%.1f") + "\" y2=\"" + html_fixed(bottom, "%.0f") + "\" stroke=\"" + colour +
           "\" stroke-dasharray=\"5,4\"/>";
  for (size_t i = 0; i < lines.size(); ++i) {
    const double y = top + row_height * (i + 0.5);
    svg += "<text x=\"" + html_fixed(left - 10, "%.0f") + "\" y=\"" + html_fixed(y + 4, "%.1f") + "\" text-anchor=\"end\">" +
           html_escape(lines[i].label) + "</text>";
    const size_t count = lines[i].marks.size();
    for (size_t k = 0; k < count; ++k) {
      const Whisker& m = lines[i].marks[k];
      if (!std::isfinite(m.centre)) continue;
      const double yy = y + (static_cast<double>(k) - (count - 1) / 2.0) * 7;
      if (std::isfinite(m.low) && std::isfinite(m.high))
        svg += "<line x1=\"" + html_fixed(px(m.low), "%.1f") + "\" y1=\"" + html_fixed(yy, "%.1f") + "\" x2=\"" +
               html_fixed(px(m.high), "%.1f") + "\" y2=\"" + html_fixed(yy, "%.1f") + "\" stroke=\"" + m.colour +
               "\" stroke-width=\"2\"" + (m.hollow ? " stroke-dasharray=\"4,2\"" : "") + "/>";
      const std::string fill = m.hollow ? "white" : m.colour;
      if (m.diamond)
        svg += "<path d=\"M" + html_fixed(px(m.centre), "%.1f") + "," + html_fixed(yy - 5, "%.1f") + " l5,5 l-5,5 l-5,-5 z\" " +
               "fill=\"" + fill + "\" stroke=\"" + m.colour + "\" stroke-width=\"1.5\"/>";
      else
        svg += "<circle cx=\"" + html_fixed(px(m.centre), "%.1f") + "\" cy=\"" + html_fixed(yy, "%.1f") + "\" r=\"4\" fill=\"" +
               fill + "\" stroke=\"" + m.colour + "\" stroke-width=\"1.5\"/>";
    }
  }
  svg += "<text x=\"" + html_fixed((left + right) / 2, "%.0f") + "\" y=\"" + html_fixed(bottom + 38, "%.0f") +
         "\" text-anchor=\"middle\">" + html_escape(x_label) + "</text></svg>";
  return svg;
}

const char* kGrey = "#8a8a8a";

std::string claim_figure(size_t index, const BoardClaim& c) {
  std::vector<FigureLine> lines;
  for (const auto& r : c.readings)
    for (size_t i = 0; i < r.selected.comparisons.size(); ++i) {
      const ComparisonVerdict &s = r.selected.comparisons[i], &l = r.last.comparisons[i];
      if (!s.test || s.test->status != WelchStatus::Ok) continue;
      const std::string colour = palette_hex(row_colour(s.pair.row));
      FigureLine line{s.pair.row + " − " + s.pair.over + ", " + s.dataset + " (" + r.reading + ")", {}};
      line.marks.push_back({s.test->difference, s.test->ci_low, s.test->ci_high, colour, false, false});
      if (l.test && l.test->status == WelchStatus::Ok)
        line.marks.push_back({l.test->difference, l.test->ci_low, l.test->ci_high, colour, true, false});
      if (s.expected) line.marks.push_back({*s.expected, NAN, NAN, kGrey, false, true});
      lines.push_back(line);
    }
  if (lines.empty()) return "";
  return figure(whisker_svg(lines, "row − over (points); red dashed: the claim's margin, grey: 0",
                            {{c.claim->margin, "#c0392b"}, {0.0, kGrey}}),
                "Claim " + std::to_string(index + 1) +
                    ": Δ with its 95% CI at the selected epoch (filled) and the final epoch (hollow, dashed); grey "
                    "diamond: the paper's Δ");
}

std::string table_figure(const BoardTable& t) {
  std::vector<FigureLine> lines;
  for (const auto& cell : t.cells) {
    if (!cell.source) continue;
    const SampleSummary& s = cell.source->selected;
    const std::string colour = palette_hex(row_colour(cell.paper->row));
    FigureLine line{cell.paper->row + ", " + cell.paper->column + " (n = " + std::to_string(s.n) + ")", {}};
    const double spread = s.n >= 2 ? s.std : NAN;
    line.marks.push_back({s.mean, s.mean - spread, s.mean + spread, colour, false, false});
    line.marks.push_back({cell.paper->mean, cell.paper->mean - cell.paper->std, cell.paper->mean + cell.paper->std,
                          kGrey, true, true});
    lines.push_back(line);
  }
  if (lines.empty()) return "";
  return figure(whisker_svg(lines, metric_info(t.paper->metric).label, {}),
                "Table " + std::to_string(t.paper->number) +
                    ": ours (filled, mean ± 1 std over n seeds) against the paper (grey diamond, mean ± 1 std, n = " +
                    std::to_string(t.paper->n) + ")");
}

std::string html_sample(const SampleSummary& s) {
  return html_fixed(s.mean, "%.2f") + (s.n >= 2 ? " ± " + html_fixed(s.std, "%.2f") : "") + " (n = " + std::to_string(s.n) +
         ")";
}

std::string claims_table(const Board& board) {
  std::string out =
      "<table class=\"claims\"><tr><th>#</th><th>claim</th><th>where in the paper</th><th>verdict</th><th>at the "
      "final epoch</th><th>reading</th><th>the paper's own numbers</th></tr>\n";
  for (size_t i = 0; i < board.claims.size(); ++i) {
    const BoardClaim& c = board.claims[i];
    std::string last = "—";
    for (const auto& r : c.readings)
      if (r.reading == c.verdict_reading) last = verdict_name(r.last.verdict);
    out += "<tr class=\"claim\" data-verdict=\"" + verdict_name(c.verdict) + "\"><td>" + std::to_string(i + 1) +
           "</td><td>" + html_escape(c.claim->text) + "</td><td>" + html_escape(c.claim->source) + "</td><td><b>" +
           verdict_name(c.verdict) + "</b></td><td>" + last + "</td><td>" +
           html_escape(c.verdict_reading.empty() ? "no reading trained" : c.verdict_reading) + "</td><td>" +
           verdict_name(c.paper.verdict) + "</td></tr>\n";
  }
  return out + "</table>\n";
}

std::string claim_section(size_t index, const BoardClaim& c) {
  std::string rows;
  for (const auto& r : c.readings)
    for (size_t i = 0; i < r.selected.comparisons.size(); ++i) {
      const ComparisonVerdict &s = r.selected.comparisons[i], &l = r.last.comparisons[i];
      if (!s.test) continue;
      rows += "<tr><td>" + html_escape(s.pair.row + " − " + s.pair.over) + "</td><td>" + html_escape(s.dataset) + "</td><td>" +
              html_escape(r.reading) + "</td><td>" + html_escape(r.sources[i]) + "</td><td>" + html_escape(comparison_text(s)) +
              "</td><td>" + verdict_name(s.verdict) + "</td><td>" +
              (s.power ? html_fixed(100 * *s.power, "%.0f%%") : "—") + "</td><td>" + html_escape(comparison_text(l)) +
              "</td><td>" + verdict_name(l.verdict) + "</td><td>" +
              (s.expected ? html_fixed(*s.expected, "%+.2f") : "—") + "</td></tr>\n";
    }
  if (rows.empty()) return "";
  return "<h3>Claim " + std::to_string(index + 1) + ": " + html_escape(c.claim->text) + "</h3>\n<p>Needs row − over &gt; " +
         html_fixed(c.claim->margin, "%g") + ".</p>\n" + claim_figure(index, c) +
         "<table><tr><th>row − over</th><th>dataset</th><th>reading</th><th>where</th><th>Δ [95% CI], "
         "selected</th><th></th><th>power</th><th>Δ [95% CI], final</th><th></th><th>paper's Δ</th></tr>\n" +
         rows + "</table>\n";
}

std::string cell_table(const Board& board, const BoardTable& t) {
  std::vector<std::string> rows, columns;
  for (const auto& cell : t.cells) add_unique(rows, cell.paper->row), add_unique(columns, cell.paper->column);
  std::string out = "<table class=\"cells\"><tr><th>model</th>";
  for (const auto& column : columns) out += "<th>" + html_escape(column) + "</th>";
  out += "</tr>\n";
  for (const auto& row : rows) {
    out += "<tr><th style=\"color:" + palette_hex(row_colour(row)) + "\">" + html_escape(row) + "</th>";
    for (const auto& column : columns) {
      const auto cell = std::find_if(t.cells.begin(), t.cells.end(), [&](const BoardCell& c) {
        return c.paper->row == row && c.paper->column == column;
      });
      if (cell == t.cells.end()) {
        out += "<td></td>";
        continue;
      }
      const char* status = cell->status == CellStatus::NotTrained ? "not-trained"
                           : cell->status == CellStatus::Within   ? "within"
                                                                  : "outside";
      std::string text = cell->source ? html_sample(cell->source->selected) + "<br><small>" +
                                            html_escape(cell_source_text(*cell->source, row)) + "</small>"
                                      : "not trained";
      std::vector<std::string> marks;
      for (const size_t i : cell->ledger)
        marks.push_back("<span title=\"" + html_escape(board.file->ledger[i].item + ": " + board.file->ledger[i].note) +
                        "\">L" + std::to_string(i + 1) + "</span>");
      out += "<td class=\"" + std::string(status) + "\">" + text + "<br>paper " +
             html_fixed(cell->paper->mean, "%.2f") + " ± " + html_fixed(cell->paper->std, "%.2f") +
             (marks.empty() ? "" : " (" + join(marks, ", ") + ")") + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

// The table's reference rows (ours only, never compared with the paper).
std::string reference_table(const BoardTable& t) {
  if (t.references.empty()) return "";
  std::string out = "<p>Reference rows (not in the paper; shown beside it, never compared with its cells):</p>\n"
                    "<table class=\"references\"><tr><th>row</th><th>dataset</th><th>ours, selected epoch</th>"
                    "<th>final epoch</th><th>chosen on validation</th><th>where</th></tr>\n";
  for (const auto& r : t.references)
    out += "<tr><td title=\"" + html_escape(r.reference->what) + "\">" + html_escape(r.reference->row) + "</td><td>" +
           html_escape(r.column) + "</td><td>" + html_sample(r.source.selected) + "</td><td>" +
           html_sample(r.source.last) + "</td><td>" +
           (r.chosen.empty() ? std::string("—")
                             : html_escape(r.chosen) + " (of " + std::to_string(r.candidates) + ")") +
           "</td><td>" + html_escape(r.source.folder->name + " (" + r.source.devices + ")") + "</td></tr>\n";
  return out + "</table>\n";
}

const char* kStyle =
    "body{font-family:sans-serif;max-width:1200px;margin:2em auto;color:#222}table{border-collapse:collapse;"
    "margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top;font-size:14px}"
    "td.within{background:#eaf6ee}td.outside{background:#fdecea}td.not-trained{color:#888}"
    "figure{margin:1em 0}img.figure{max-width:100%}figcaption{font-size:13px;color:#555}";

}  // namespace

std::string board_html(const Board& board) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>The claims board: " +
                    html_escape(board.file->paper) + "</title><style>" + kStyle + "</style></head><body>\n";
  out += "<h1>The claims board: " + html_escape(board.file->paper) + "</h1>\n<p id=\"coverage\">" +
         html_escape(board_coverage(board)) + "</p>\n";
  out += "<p>From the run records of " + std::to_string(board.folders.size()) + " results folders below " +
         html_escape(board.root.filename().string()) +
         "; each claim judged on the runs of its table's readings of the paper's protocol; rules in "
         "docs/report.md. <span id=\"figures-loaded\">figures not checked</span></p>\n";
  out += "<h2>The paper's claims</h2>\n" + claims_table(board);
  for (size_t i = 0; i < board.claims.size(); ++i) out += claim_section(i, board.claims[i]);
  for (const auto& t : board.tables) {
    out += "<h2>Table " + std::to_string(t.paper->number) + ": ours (selected epoch) against the paper's</h2>\n";
    out += table_figure(t) + cell_table(board, t) + reference_table(t);
  }
  out +=
      "<script>window.addEventListener('load',function(){var images=Array.prototype.slice.call(document.images);"
      "var loaded=images.filter(function(i){return i.complete&&i.naturalWidth>0;}).length;"
      "document.getElementById('figures-loaded').textContent='figures loaded: '+loaded+' of '+images.length;});"
      "</script>\n</body></html>\n";
  return out;
}

}  // namespace repro
