#pragma once
// One small chart routine for `repro report --plots`: axes with ticks and
// labels, a title, one colour per series (a line with point markers, an
// optional ±1 std band or error bars) and a legend placed to the right of the
// plot area, so it never covers data. Drawn with cairo into PNG and SVG
// surfaces (REPRO_WITH_CAIRO); without cairo, write_chart fails with a one-line
// error naming the option.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace repro {

enum class SpreadStyle { Band, ErrorBars };

struct ChartSeries {
  std::string label;
  std::vector<double> x, y;  // the mean at each x
  std::vector<double> std;   // ±1 std at each x (NaN or empty: none, e.g. one seed)
  std::vector<int> n;        // the seeds behind each point (the legend says it when it differs; the CSV has it)
  int colour = 0;            // index into the palette (report/figures/palette.h: row_colour gives a row's)
  bool dashed = false;
  SpreadStyle spread = SpreadStyle::Band;
  std::vector<std::pair<double, double>>
      marks;  // single points (x, y) drawn as open diamonds: each run's selected epoch
};

struct Chart {
  std::string title, subtitle;  // subtitle: e.g. "mean ± 1 std over 5 seeds"
  std::string x_label, y_label;
  std::vector<ChartSeries> series;
  bool integer_x = false;  // ticks on whole numbers only (epochs)
  // When set, these x ticks and labels instead of numeric ones (a sweep axis: its values at 0, 1, 2, ...).
  std::vector<std::pair<double, std::string>> x_tick_labels;
  int width = 960, height = 560;
  std::string marks_label;  // the legend's entry for the series' marks (drawn when any series has marks)
};

enum class ChartFormat { Png, Svg };

// Draws `chart` into `file` (its extension is the caller's choice). Throws repro::Error naming the file when it
// cannot be written, or naming REPRO_WITH_CAIRO in a build without cairo.
void write_chart(const Chart& chart, const std::filesystem::path& file, ChartFormat format);

// The chart as drawn: when the series' n differ (a 5-seed mean beside a 1-seed one), each series' label gets its
// n ("DGT x16/3 (n = 5)", "Transformer (n = 1–5)"). Lines and bands are broken where a series' n changes.
Chart with_n_in_legend(Chart chart);
// The series' points split where n changes, [begin, end) each: a mean over 5 seeds and one over 1 are joined by
// no line and no band. A series without n is one stretch.
std::vector<std::pair<size_t, size_t>> same_n_stretches(const ChartSeries& series);

// Tick positions for [low, high]: 1, 2 or 5 × 10^k apart, about `wanted` of them, inside the range.
std::vector<double> nice_ticks(double low, double high, int wanted, bool integer_only);

// Paths cairo writes into an SVG per series: band (when it has a std), line, markers, legend swatch. The stroke of
// a series line alone is kSeriesLineWidth wide (tests count them).
constexpr double kSeriesLineWidth = 2.25;

}  // namespace repro
