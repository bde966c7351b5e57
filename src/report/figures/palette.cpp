#include "report/figures/palette.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace repro {

namespace {

const Rgb kPalette[kPaletteSize] = {{0.000, 0.447, 0.698}, {0.835, 0.369, 0.000}, {0.000, 0.620, 0.451},
                                    {0.800, 0.475, 0.655}, {0.902, 0.624, 0.000}, {0.337, 0.706, 0.914},
                                    {0.545, 0.333, 0.141}, {0.0, 0.0, 0.0}};

// The rows of experiments/*.yaml. Rows that share a figure have different colours: Table 2's seven, Table 1's
// four, the ablations' and the sweeps' baselines first (blue) like every table's first row.
const std::map<std::string, int>& fixed_rows() {
  static const std::map<std::string, int> rows = {
      {"Transformer", 0},
      {"DIFF Transformer x2", 4},
      {"DIFF Transformer x4", 5},
      {"DIFF Transformer x16/3", 1},
      {"DGT x2", 3},
      {"DGT x4", 6},
      {"DGT x16/3", 2},
      {"ViT", 0},
      {"DGViT x2 drop x2", 4},
      {"DGViT x4 drop x1", 3},
      {"DGViT x4 drop x2", 2},
      {"vanilla", 0},
      {"diff", 1},
      {"dgsa", 2},
  };
  return rows;
}

}  // namespace

Rgb palette_colour(int index) { return kPalette[static_cast<size_t>(std::abs(index)) % kPaletteSize]; }

std::string palette_hex(int index) {
  const Rgb c = palette_colour(index);
  char text[8];
  std::snprintf(text, sizeof text, "#%02x%02x%02x", static_cast<int>(c.r * 255 + 0.5),
                static_cast<int>(c.g * 255 + 0.5), static_cast<int>(c.b * 255 + 0.5));
  return text;
}

namespace {

unsigned name_hash(const std::string& text) {
  unsigned hash = 2166136261u;  // FNV-1a: the same colour in every run of repro, on every machine
  for (const unsigned char ch : text) hash = (hash ^ ch) * 16777619u;
  return hash;
}

}  // namespace

int row_colour(const std::string& row) {
  const auto& rows = fixed_rows();
  const size_t plus = row.find('+');
  const auto base = rows.find(row.substr(0, plus));
  if (plus == std::string::npos)
    return base != rows.end() ? base->second : static_cast<int>(name_hash(row) % kPaletteSize);
  // A swept configuration: its row's colour moved by a step its sweep values choose (never 0: never the row's own).
  const int base_colour =
      base != rows.end() ? base->second : static_cast<int>(name_hash(row.substr(0, plus)) % kPaletteSize);
  return (base_colour + 1 + static_cast<int>(name_hash(row.substr(plus)) % (kPaletteSize - 1))) % kPaletteSize;
}

std::vector<int> row_colours(const std::vector<std::string>& rows) {
  std::vector<int> colours;
  for (const auto& row : rows) {
    int colour = row_colour(row);
    for (int step = 0; step < kPaletteSize && std::find(colours.begin(), colours.end(), colour) != colours.end();
         ++step)
      colour = (colour + 1) % kPaletteSize;
    colours.push_back(colour);
  }
  return colours;
}

}  // namespace repro
