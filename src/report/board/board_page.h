#pragma once
// The claims board as one list of blocks (headings, paragraphs, tables, lists, figures) whose text is inline
// Markdown: board_markdown writes the blocks as Markdown and board_html as an HTML page (the figures on the page
// only), so that the page says everything board.md says. Inline Markdown here: **bold**, *italic*, `code`, <br>,
// \| (a | inside a table cell) and [text](#anchor), a link on the page and its text alone in Markdown.
#include <string>
#include <utility>
#include <vector>

#include "report/board/board.h"
#include "report/board/board_figures.h"

namespace repro {

struct PageCell {
  std::string text;    // inline Markdown
  std::string css;     // the page's class: "within", "outside", "not-trained", "row" ("" = none)
  std::string colour;  // the page's text colour, "#0072b2" ("" = the default)
};

struct PageBlock {
  enum class Kind { Heading, Paragraph, Table, List, Figure };
  Kind kind = Kind::Paragraph;
  int level = 0;                                           // Heading: its Markdown level (2 = "##")
  std::string text;                                        // Heading, Paragraph: inline Markdown
  std::string id;                                          // Heading: the page's anchor ("" = none)
  std::string css;                                         // Table: the page's class
  std::vector<std::vector<PageCell>> rows;                 // Table: the header row first
  std::vector<std::pair<std::string, std::string>> items;  // List: (the page's anchor or "", inline Markdown)
  PageFigure figure;                                       // Figure (the page only)
};

std::vector<PageBlock> board_page(const Board& board);

// The inline Markdown of `text` with its links reduced to their text: "[L4](#L4)" -> "L4".
std::string without_links(const std::string& text);

}  // namespace repro
