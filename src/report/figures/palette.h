#pragma once
// One colour per row name in every figure of every report (issue 46): a fixed palette (Okabe–Ito, colour-blind
// safe, its yellow replaced by a dark brown; black last) and a fixed table giving each row of the project's
// experiments its colour, so that DGT x16/3 has one colour in results/table2/gpu, cpu_newsgroups and the claims
// board alike. A swept configuration ("Transformer+no_decay=paper") takes its row's colour moved by a step that its
// sweep values choose (never its row's own colour); a row not in the table takes a colour from its name's hash.
#include <string>
#include <vector>

namespace repro {

struct Rgb {
  double r, g, b;  // 0..1
};

constexpr int kPaletteSize = 8;

// The palette's colour `index` (taken modulo the palette's size).
Rgb palette_colour(int index);
// "#0072b2": the same colour for SVG and HTML.
std::string palette_hex(int index);

// The colour index of a row name (a model configuration, "+axis=value" suffixes included).
int row_colour(const std::string& row);
// The colours of the rows of one figure: each its row_colour, except that a row whose colour an earlier row of
// the figure has takes the next free one (two swept configurations whose hashes meet; more rows than colours
// repeat).
std::vector<int> row_colours(const std::vector<std::string>& rows);

}  // namespace repro
