#include "report/figures/plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>

#include "report/figures/palette.h"
#include "util/error.h"
#include "util/files.h"

#if REPRO_HAS_CAIRO
#include <cairo-svg.h>
#include <cairo.h>
#endif

namespace repro {

std::vector<std::pair<size_t, size_t>> same_n_stretches(const ChartSeries& s) {
  const size_t count = std::min(s.x.size(), s.y.size());
  std::vector<std::pair<size_t, size_t>> stretches;
  size_t begin = 0;
  for (size_t i = 1; i <= count; ++i)
    if (i == count || (i < s.n.size() && i - 1 < s.n.size() && s.n[i] != s.n[i - 1])) {
      stretches.emplace_back(begin, i);
      begin = i;
    }
  return stretches;
}

Chart with_n_in_legend(Chart chart) {
  std::set<int> all;
  for (const auto& s : chart.series) all.insert(s.n.begin(), s.n.end());
  if (all.size() < 2) return chart;
  for (auto& s : chart.series) {
    if (s.n.empty()) continue;
    const auto [low, high] = std::minmax_element(s.n.begin(), s.n.end());
    s.label += " (n = " + std::to_string(*low) + (*low == *high ? "" : "–" + std::to_string(*high)) + ")";
  }
  return chart;
}

namespace {

std::vector<double> ticks_with_step(double low, double high, double step) {
  std::vector<double> ticks;
  const double first = std::ceil(low / step - 1e-9);
  for (double k = first; k * step <= high + 1e-9 * step; k += 1) ticks.push_back(k == 0 ? 0.0 : k * step);
  return ticks;
}

}  // namespace

std::vector<double> nice_ticks(double low, double high, int wanted, bool integer_only) {
  if (!(high > low)) return {low};
  const double power = std::pow(10.0, std::floor(std::log10((high - low) / std::max(1, wanted))));
  // Of the steps 1, 2, 5, 10 × 10^k, the one whose tick count is closest to `wanted` (fewer ticks on a tie).
  std::vector<double> best;
  for (double factor : {10.0, 5.0, 2.0, 1.0}) {
    const double step = integer_only ? std::max(1.0, std::round(factor * power)) : factor * power;
    auto ticks = ticks_with_step(low, high, step);
    if (best.empty() ||
        std::abs(static_cast<int>(ticks.size()) - wanted) < std::abs(static_cast<int>(best.size()) - wanted))
      best = std::move(ticks);
  }
  return best;
}

#if REPRO_HAS_CAIRO

namespace {

Rgb colour_of(int index) { return palette_colour(index); }

bool has(double v) { return std::isfinite(v); }

double std_at(const ChartSeries& s, size_t i) { return i < s.std.size() && has(s.std[i]) ? s.std[i] : NAN; }

struct Range {
  double x_low = INFINITY, x_high = -INFINITY, y_low = INFINITY, y_high = -INFINITY;
};

Range data_range(const Chart& chart) {
  Range r;
  for (const auto& s : chart.series)
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!has(s.x[i]) || !has(s.y[i])) continue;
      const double spread = has(std_at(s, i)) ? std_at(s, i) : 0;
      r.x_low = std::min(r.x_low, s.x[i]), r.x_high = std::max(r.x_high, s.x[i]);
      r.y_low = std::min(r.y_low, s.y[i] - spread), r.y_high = std::max(r.y_high, s.y[i] + spread);
    }
  for (const auto& s : chart.series)
    for (const auto& [x, y] : s.marks) {
      if (!has(x) || !has(y)) continue;
      r.x_low = std::min(r.x_low, x), r.x_high = std::max(r.x_high, x);
      r.y_low = std::min(r.y_low, y), r.y_high = std::max(r.y_high, y);
    }
  if (!has(r.x_low)) r = {0, 1, 0, 1};
  if (r.x_high == r.x_low) r.x_low -= 1, r.x_high += 1;
  if (r.y_high == r.y_low) r.y_low -= 1, r.y_high += 1;
  const double pad = 0.06 * (r.y_high - r.y_low);
  r.y_low -= pad, r.y_high += pad;
  const double x_pad = 0.03 * (r.x_high - r.x_low);
  r.x_low -= x_pad, r.x_high += x_pad;
  return r;
}

std::string tick_text(double value, double step) {
  char buffer[32];
  const int digits = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  std::snprintf(buffer, sizeof buffer, "%.*f", std::min(digits, 6), value);
  return buffer;
}

double text_width(cairo_t* cr, const std::string& text) {
  cairo_text_extents_t extents;
  cairo_text_extents(cr, text.c_str(), &extents);
  return extents.x_advance;
}

void draw_text(cairo_t* cr, const std::string& text, double x, double y, double align_x) {
  cairo_move_to(cr, x - align_x * text_width(cr, text), y);
  cairo_show_text(cr, text.c_str());
}

// Maps data to the plot area.
struct Frame {
  double left, top, right, bottom;
  Range range;
  double px(double x) const { return left + (x - range.x_low) / (range.x_high - range.x_low) * (right - left); }
  double py(double y) const { return bottom - (y - range.y_low) / (range.y_high - range.y_low) * (bottom - top); }
};

void draw_axes(cairo_t* cr, const Chart& chart, const Frame& f) {
  cairo_set_font_size(cr, 13);
  const auto x_ticks = nice_ticks(f.range.x_low, f.range.x_high, 8, chart.integer_x);
  const auto y_ticks = nice_ticks(f.range.y_low, f.range.y_high, 7, false);
  const double x_step = x_ticks.size() > 1 ? x_ticks[1] - x_ticks[0] : 1;
  const double y_step = y_ticks.size() > 1 ? y_ticks[1] - y_ticks[0] : 1;
  cairo_set_line_width(cr, 1);
  for (double t : y_ticks) {  // light grid, then labels
    cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
    cairo_move_to(cr, f.left, std::round(f.py(t)) + 0.5);
    cairo_line_to(cr, f.right, std::round(f.py(t)) + 0.5);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    draw_text(cr, tick_text(t, y_step), f.left - 8, f.py(t) + 4.5, 1.0);
  }
  std::vector<std::pair<double, std::string>> x_labels = chart.x_tick_labels;
  if (x_labels.empty())
    for (double t : x_ticks) x_labels.emplace_back(t, tick_text(t, x_step));
  for (const auto& [t, label] : x_labels) {
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    cairo_move_to(cr, std::round(f.px(t)) + 0.5, f.bottom);
    cairo_line_to(cr, std::round(f.px(t)) + 0.5, f.bottom + 5);
    cairo_stroke(cr);
    draw_text(cr, label, f.px(t), f.bottom + 20, 0.5);
  }
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  cairo_rectangle(cr, f.left + 0.5, f.top + 0.5, f.right - f.left, f.bottom - f.top);
  cairo_stroke(cr);
  cairo_set_font_size(cr, 14);
  draw_text(cr, chart.x_label, (f.left + f.right) / 2, f.bottom + 44, 0.5);
  cairo_save(cr);
  cairo_translate(cr, f.left - 58, (f.top + f.bottom) / 2);
  cairo_rotate(cr, -M_PI / 2);
  draw_text(cr, chart.y_label, 0, 0, 0.5);
  cairo_restore(cr);
}

void set_colour(cairo_t* cr, const Rgb& c, double alpha) { cairo_set_source_rgba(cr, c.r, c.g, c.b, alpha); }

// The ±1 std band or error bars of a series.
// Error bars of series k of n sit `dodge` pixels apart so that bars at one x do not hide each other.
void draw_spread(cairo_t* cr, const ChartSeries& s, const Frame& f, double dodge) {
  const Rgb colour = colour_of(s.colour);
  const size_t n = std::min(s.x.size(), s.y.size());
  bool any_std = false;
  for (size_t i = 0; i < n; ++i) any_std |= has(std_at(s, i));
  if (any_std && s.spread == SpreadStyle::Band) {  // per stretch of one n: upper edge forward, lower edge back
    for (const auto& [begin, end] : same_n_stretches(s)) {
      for (size_t i = begin; i < end; ++i) {
        const double sd = has(std_at(s, i)) ? std_at(s, i) : 0;
        cairo_line_to(cr, f.px(s.x[i]), f.py(s.y[i] + sd));
      }
      for (size_t i = end; i-- > begin;) {
        const double sd = has(std_at(s, i)) ? std_at(s, i) : 0;
        cairo_line_to(cr, f.px(s.x[i]), f.py(s.y[i] - sd));
      }
      cairo_close_path(cr);
    }
    set_colour(cr, colour, 0.22);
    cairo_fill(cr);
  }
  if (any_std && s.spread == SpreadStyle::ErrorBars) {
    for (size_t i = 0; i < n; ++i) {
      if (!has(std_at(s, i))) continue;
      const double x = f.px(s.x[i]) + dodge, lo = f.py(s.y[i] - std_at(s, i)), hi = f.py(s.y[i] + std_at(s, i));
      cairo_move_to(cr, x, lo), cairo_line_to(cr, x, hi);
      cairo_move_to(cr, x - 5, lo), cairo_line_to(cr, x + 5, lo);
      cairo_move_to(cr, x - 5, hi), cairo_line_to(cr, x + 5, hi);
    }
    set_colour(cr, colour, 1);
    cairo_set_line_width(cr, 1.5);
    cairo_stroke(cr);
  }
}

// The mean line and its point markers, drawn after every series' spread so that no band covers a line.
void draw_line(cairo_t* cr, const ChartSeries& s, const Frame& f) {
  const Rgb colour = colour_of(s.colour);
  const size_t n = std::min(s.x.size(), s.y.size());
  for (const auto& [begin, end] : same_n_stretches(s)) {  // a line never joins points of different n
    cairo_new_sub_path(cr);
    for (size_t i = begin; i < end; ++i) cairo_line_to(cr, f.px(s.x[i]), f.py(s.y[i]));
  }
  set_colour(cr, colour, 1);
  cairo_set_line_width(cr, kSeriesLineWidth);
  const double dashes[] = {7, 4};
  cairo_set_dash(cr, dashes, s.dashed ? 2 : 0, 0);
  cairo_stroke(cr);
  cairo_set_dash(cr, nullptr, 0, 0);
  for (size_t i = 0; i < n; ++i) {
    cairo_new_sub_path(cr);
    cairo_arc(cr, f.px(s.x[i]), f.py(s.y[i]), 3.5, 0, 2 * M_PI);
  }
  cairo_fill(cr);
}

void diamond_path(cairo_t* cr, double x, double y, double radius) {
  cairo_move_to(cr, x, y - radius), cairo_line_to(cr, x + radius, y);
  cairo_line_to(cr, x, y + radius), cairo_line_to(cr, x - radius, y);
  cairo_close_path(cr);
}

// An open diamond: white inside, the series' colour around.
void draw_diamond(cairo_t* cr, const Rgb& colour, double x, double y) {
  diamond_path(cr, x, y, 6);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_fill_preserve(cr);
  set_colour(cr, colour, 1);
  cairo_set_line_width(cr, 1.75);
  cairo_stroke(cr);
}

// The series' marks, drawn over every line.
void draw_marks(cairo_t* cr, const ChartSeries& s, const Frame& f) {
  for (const auto& [x, y] : s.marks)
    if (has(x) && has(y)) draw_diamond(cr, colour_of(s.colour), f.px(x), f.py(y));
}

bool any_marks(const Chart& chart) {
  return std::any_of(chart.series.begin(), chart.series.end(), [](const ChartSeries& s) { return !s.marks.empty(); });
}

void draw_legend(cairo_t* cr, const Chart& chart, double x, double top) {
  cairo_set_font_size(cr, 13);
  double y = top + 10;
  for (const auto& s : chart.series) {
    const Rgb colour = colour_of(s.colour);
    set_colour(cr, colour, 1);
    cairo_set_line_width(cr, 3);
    const double dashes[] = {6, 3};
    cairo_set_dash(cr, dashes, s.dashed ? 2 : 0, 0);
    cairo_move_to(cr, x, y - 4.5), cairo_line_to(cr, x + 26, y - 4.5);
    cairo_stroke(cr);
    cairo_set_dash(cr, nullptr, 0, 0);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    draw_text(cr, s.label, x + 34, y, 0);
    y += 22;
  }
  if (any_marks(chart) && !chart.marks_label.empty()) {
    draw_diamond(cr, {0.35, 0.35, 0.35}, x + 13, y - 4.5);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    draw_text(cr, chart.marks_label, x + 34, y, 0);
  }
}

void draw_chart(cairo_t* cr, const Chart& chart) {
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, 13);
  double legend_width = 0;
  for (const auto& s : chart.series) legend_width = std::max(legend_width, 34 + text_width(cr, s.label));
  if (any_marks(chart)) legend_width = std::max(legend_width, 34 + text_width(cr, chart.marks_label));
  legend_width = std::min(legend_width, chart.width * 0.45);
  Frame f{84, chart.subtitle.empty() ? 48.0 : 66.0, chart.width - legend_width - 36, chart.height - 62.0,
          data_range(chart)};
  cairo_set_source_rgb(cr, 0.05, 0.05, 0.05);
  cairo_set_font_size(cr, 16);
  draw_text(cr, chart.title, f.left, 26, 0);
  if (!chart.subtitle.empty()) {
    cairo_set_font_size(cr, 13);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    draw_text(cr, chart.subtitle, f.left, 47, 0);
  }
  draw_axes(cr, chart, f);
  cairo_save(cr);
  cairo_rectangle(cr, f.left, f.top, f.right - f.left, f.bottom - f.top);
  cairo_clip(cr);
  const size_t count = chart.series.size();
  for (size_t k = 0; k < count; ++k)
    draw_spread(cr, chart.series[k], f, 4.0 * (static_cast<double>(k) - (static_cast<double>(count) - 1) / 2));
  for (const auto& s : chart.series) draw_line(cr, s, f);
  for (const auto& s : chart.series) draw_marks(cr, s, f);
  cairo_restore(cr);
  draw_legend(cr, chart, f.right + 18, f.top);
}

void check(cairo_status_t status, const std::filesystem::path& file) {
  if (status != CAIRO_STATUS_SUCCESS) throw WriteError(file.string(), cairo_status_to_string(status));
}

// Cairo writes into memory; the file is then replaced atomically (never written through a link).
cairo_status_t append_bytes(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

}  // namespace

void write_chart(const Chart& drawn_chart, const std::filesystem::path& file, ChartFormat format) {
  const Chart chart = with_n_in_legend(drawn_chart);
  std::string bytes;
  cairo_surface_t* surface = format == ChartFormat::Png
                                 ? cairo_image_surface_create(CAIRO_FORMAT_ARGB32, chart.width, chart.height)
                                 : cairo_svg_surface_create_for_stream(append_bytes, &bytes, chart.width, chart.height);
  cairo_t* cr = cairo_create(surface);
  draw_chart(cr, chart);
  const cairo_status_t drawn = cairo_status(cr);
  cairo_destroy(cr);
  cairo_status_t written = drawn;
  if (drawn == CAIRO_STATUS_SUCCESS && format == ChartFormat::Png)
    written = cairo_surface_write_to_png_stream(surface, append_bytes, &bytes);
  cairo_surface_finish(surface);  // the SVG is written here
  if (written == CAIRO_STATUS_SUCCESS) written = cairo_surface_status(surface);
  cairo_surface_destroy(surface);
  check(written, file);
  write_file_atomic(file, bytes);
}

#else

void write_chart(const Chart&, const std::filesystem::path& file, ChartFormat) {
  missing_feature("repro report --plots (" + file.filename().string() + ")", "cairo", "REPRO_WITH_CAIRO");
}

#endif

}  // namespace repro
