#pragma once
// The claims board page's figures (board_html embeds them as data: images): a forest plot per claim, Δ with its
// 95% CI at the selected epoch (filled) and the final (hollow) with the paper's Δ and the claim's margin, and one per
// table, ours (mean ± 1 std) against the paper's.
#include <string>

#include "report/board/board.h"

namespace repro {

struct PageFigure {
  std::string svg;      // "" when there is nothing to draw
  std::string caption;  // plain text
};

PageFigure claim_figure(size_t index, const BoardClaim& claim);
PageFigure table_figure(const BoardTable& table);

}  // namespace repro
