#pragma once
// Token strips as a self-contained HTML page: inline styles only, every token a
// <span> whose background is its signed relevance on the PNG's diverging colour map
// and whose title attribute holds the value; a legend with the colour bar.
#include <string>

#include "analysis/token_strip.h"

namespace repro {

// &, <, >, " and ' as entities.
std::string html_escape(const std::string& text);

// The page (UTF-8), one section per block of `figure`.
std::string token_strip_html(const StripFigure& figure);

}  // namespace repro
