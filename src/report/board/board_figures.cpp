// The board page's figures as SVG: a forest plot per claim and ours against the paper per table (dot and whisker).
#include "report/board/board_figures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/figures/palette.h"
#include "report/figures/plot.h"
#include "report/tables/table.h"
#include "util/strings.h"

namespace repro {

namespace {

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
  std::string svg =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1080\" height=\"" + format_double(height, "%.0f") +
      "\" font-family=\"sans-serif\" font-size=\"13\"><rect width=\"100%\" height=\"100%\" fill=\"white\"/>";
  const double bottom = top + row_height * lines.size();
  for (const double tick : nice_ticks(low, high, 8, false)) {
    svg += "<line x1=\"" + format_double(px(tick), "%.1f") + "\" y1=\"" + format_double(top, "%.0f") + "\" x2=\"" +
           format_double(px(tick), "%.1f") + "\" y2=\"" + format_double(bottom, "%.0f") + "\" stroke=\"#e4e4e4\"/>";
    svg += "<text x=\"" + format_double(px(tick), "%.1f") + "\" y=\"" + format_double(bottom + 16, "%.0f") +
           "\" text-anchor=\"middle\">" + format_number(tick) + "</text>";
  }
  for (const auto& [value, colour] : references)
    svg += "<line x1=\"" + format_double(px(value), "%.1f") + "\" y1=\"" + format_double(top - 6, "%.0f") + "\" x2=\"" +
           format_double(px(value), "%.1f") + "\" y2=\"" + format_double(bottom, "%.0f") + "\" stroke=\"" + colour +
           "\" stroke-dasharray=\"5,4\"/>";
  for (size_t i = 0; i < lines.size(); ++i) {
    const double y = top + row_height * (i + 0.5);
    svg += "<text x=\"" + format_double(left - 10, "%.0f") + "\" y=\"" + format_double(y + 4, "%.1f") +
           "\" text-anchor=\"end\">" + xml_escape(lines[i].label) + "</text>";
    const size_t count = lines[i].marks.size();
    for (size_t k = 0; k < count; ++k) {
      const Whisker& m = lines[i].marks[k];
      if (!std::isfinite(m.centre)) continue;
      const double yy = y + (static_cast<double>(k) - (count - 1) / 2.0) * 7;
      if (std::isfinite(m.low) && std::isfinite(m.high))
        svg += "<line x1=\"" + format_double(px(m.low), "%.1f") + "\" y1=\"" + format_double(yy, "%.1f") + "\" x2=\"" +
               format_double(px(m.high), "%.1f") + "\" y2=\"" + format_double(yy, "%.1f") + "\" stroke=\"" + m.colour +
               "\" stroke-width=\"2\"" + (m.hollow ? " stroke-dasharray=\"4,2\"" : "") + "/>";
      const std::string fill = m.hollow ? "white" : m.colour;
      if (m.diamond)
        svg += "<path d=\"M" + format_double(px(m.centre), "%.1f") + "," + format_double(yy - 5, "%.1f") +
               " l5,5 l-5,5 l-5,-5 z\" " + "fill=\"" + fill + "\" stroke=\"" + m.colour + "\" stroke-width=\"1.5\"/>";
      else
        svg += "<circle cx=\"" + format_double(px(m.centre), "%.1f") + "\" cy=\"" + format_double(yy, "%.1f") +
               "\" r=\"4\" fill=\"" + fill + "\" stroke=\"" + m.colour + "\" stroke-width=\"1.5\"/>";
    }
  }
  svg += "<text x=\"" + format_double((left + right) / 2, "%.0f") + "\" y=\"" + format_double(bottom + 38, "%.0f") +
         "\" text-anchor=\"middle\">" + xml_escape(x_label) + "</text></svg>";
  return svg;
}

const char* kGrey = "#8a8a8a";

}  // namespace

PageFigure claim_figure(size_t index, const BoardClaim& c) {
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
  if (lines.empty()) return {};
  return {whisker_svg(lines, "row − over (points); red dashed: the claim's margin, grey: 0",
                      {{c.claim->margin, "#c0392b"}, {0.0, kGrey}}),
          "Claim " + std::to_string(index + 1) +
              ": Δ with its 95% CI at the selected epoch (filled) and the final epoch (hollow, dashed); grey "
              "diamond: the paper's Δ"};
}

PageFigure table_figure(const BoardTable& t) {
  std::vector<FigureLine> lines;
  for (const auto& cell : t.cells) {
    if (!cell.source) continue;
    const SampleSummary& s = cell.source->selected;
    const std::string colour = palette_hex(row_colour(cell.paper->row));
    FigureLine line{cell.paper->row + ", " + cell.paper->column + " (n = " + std::to_string(s.n) + ")", {}};
    const double spread = s.n >= 2 ? s.std : NAN;
    line.marks.push_back({s.mean, s.mean - spread, s.mean + spread, colour, false, false});
    line.marks.push_back(
        {cell.paper->mean, cell.paper->mean - cell.paper->std, cell.paper->mean + cell.paper->std, kGrey, true, true});
    lines.push_back(line);
  }
  if (lines.empty()) return {};
  return {whisker_svg(lines, metric_info(t.paper->metric).label, {}),
          "Table " + std::to_string(t.paper->number) +
              ": ours (filled, mean ± 1 std over n seeds) against the paper (grey diamond, mean ± 1 std, n = " +
              std::to_string(t.paper->n) + ")"};
}

}  // namespace repro
