#include "analysis/html.h"

#include <fmt/format.h>

#include <cmath>

#include "analysis/figure.h"
#include "util/strings.h"

namespace repro {

namespace {

// diverging_colour(t) as a CSS colour.
std::string css_colour(double t) {
  const cv::Vec3b bgr = diverging_colour(t);
  return fmt::format("rgb({},{},{})", bgr[2], bgr[1], bgr[0]);
}

std::string token_span(const StripScale& scale, const StripToken& token) {
  const double t = scaled_relevance(scale, token);
  std::string style = "background:" + css_colour(t) + ";padding:1px 3px;margin:1px;border-radius:3px";
  if (std::abs(t) > 0.6) style += ";color:#fff";
  if (token.unknown) style += ";font-style:italic;text-decoration:underline dotted";
  const std::string title = fmt::format("{:+.4g} (block mean {:+.4g}; {:+.2f} on the colour scale){}", token.relevance,
                                        scale.mean, t,
                                        token.unknown ? "; <unk>: not in the vocabulary" : "");
  return "<span style=\"" + style + "\" title=\"" + html_escape(title) + "\">" + html_escape(token.text) + "</span>";
}

std::string legend() {
  std::string bar;
  for (int i = 0; i <= 10; ++i) bar += (i ? "," : "") + css_colour(-1.0 + 0.2 * i);
  return "<div style=\"margin:1em 0\"><div style=\"width:360px;height:14px;border:1px solid #222;"
         "background:linear-gradient(to right," +
         bar +
         ")\"></div><div style=\"width:360px;display:flex;justify-content:space-between;font-size:0.85em\">"
         "<span>below the block's mean</span><span>mean</span><span>above the block's mean</span></div>"
         "<p style=\"font-size:0.85em;color:#555\">Signed attention-rollout relevance of each token minus its "
         "block's mean (the relevance of uniform attention), scaled by the block's 95th percentile of "
         "|relevance &minus; mean| (beyond it: full colour); hover for the value. Italic underlined = not in the "
         "vocabulary (the model saw &lt;unk&gt;).</p></div>\n";
}

}  // namespace

std::string html_escape(const std::string& text) { return xml_escape(text, /*apostrophe=*/true); }

std::string token_strip_html(const StripFigure& figure) {
  std::string page = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + html_escape(figure.heading) +
                     "</title></head>\n<body style=\"font-family:sans-serif;max-width:62em;margin:1em auto;"
                     "color:#222\">\n<h1 style=\"font-size:1.3em\">" +
                     html_escape(figure.heading) + "</h1>\n<p>" + html_escape(figure.label) +
                     (figure.note.empty() ? "" : " (" + html_escape(figure.note) + ")") + "</p>\n" + legend();
  char letter = 'a';
  for (const auto& block : figure.blocks) {
    page += "<h2 style=\"font-size:1.1em;margin-bottom:0.3em\">(" + std::string(1, letter++) + ") " +
            html_escape(block.title) + " <span style=\"font-weight:normal;color:" + (block.correct ? "#282" : "#c22") +
            "\">" + html_escape(block.caption) + "</span></h2>\n";
    page += "<p style=\"line-height:1.9\">";
    const StripScale scale = strip_scale(block);
    for (const auto& token : block.tokens) page += token_span(scale, token) + " ";
    page += "</p>\n";
  }
  return page + "</body></html>\n";
}

}  // namespace repro
