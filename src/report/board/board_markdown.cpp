// The claims board's blocks written as Markdown (board.md, the top of results/README.md); the figures are the page's.
#include "report/board/board.h"
#include "report/board/board_page.h"

namespace repro {

namespace {

// "| a | b |", an empty cell as "| |".
std::string markdown_row(const std::vector<PageCell>& cells) {
  std::string out = "|";
  for (const auto& cell : cells) out += cell.text.empty() ? " |" : " " + without_links(cell.text) + " |";
  return out + "\n";
}

std::string markdown_block(const PageBlock& block) {
  switch (block.kind) {
    case PageBlock::Kind::Heading:
      return std::string(block.level, '#') + " " + without_links(block.text) + "\n\n";
    case PageBlock::Kind::Paragraph:
      return without_links(block.text) + "\n\n";
    case PageBlock::Kind::Table: {
      std::string out = markdown_row(block.rows.front()) + "|";
      for (size_t i = 0; i < block.rows.front().size(); ++i) out += "---|";
      out += "\n";
      for (size_t r = 1; r < block.rows.size(); ++r) out += markdown_row(block.rows[r]);
      return out + "\n";
    }
    case PageBlock::Kind::List: {
      std::string out;
      for (const auto& [id, text] : block.items) out += "- " + without_links(text) + "\n";
      return out + "\n";
    }
    case PageBlock::Kind::Figure:
      return "";
  }
  return "";
}

}  // namespace

std::string board_markdown(const Board& board) {
  std::string out;
  for (const auto& block : board_page(board)) out += markdown_block(block);
  if (out.size() >= 2 && out.compare(out.size() - 2, 2, "\n\n") == 0) out.pop_back();  // one newline at the end
  return out;
}

}  // namespace repro
