// The claims board's blocks as one self-contained HTML page: the same text as the Markdown (inline Markdown turned
// into tags), the ledger marks linked to their lines under each table, and the SVG figures embedded as data:
// images. No script, nothing from the network; it reads at a phone's width and prints.
#include <cctype>
#include <cstdio>
#include <regex>

#include "report/board/board.h"
#include "report/board/board_page.h"
#include "util/strings.h"

namespace repro {

namespace {

// Whether text[i] is a + or = just before a digit: the sign of a number ("+2.09"), or a value's ("=0.01").
bool is_sign(const std::string& text, size_t i) {
  return (text[i] == '+' || text[i] == '=') && i + 1 < text.size() &&
         std::isdigit(static_cast<unsigned char>(text[i + 1]));
}

// `text` escaped, with a line break allowed after each / _ + = of a long name ("table2/weight_decay:
// Transformer+no_decay=paper"), so that a narrow screen wraps it instead of splitting a word or running off the page;
// never after a sign (is_sign): "+" / "2.09" was a line break at 800 px.
std::string breakable(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    out += xml_escape(std::string(1, c));
    if ((c == '/' || c == '_' || c == '+' || c == '=') && !is_sign(text, i)) out += "<wbr>";
  }
  return out;
}

// A confidence interval "[-0.74, +2.09]" starting at `at`: the index of its ']'; npos when there is none.
size_t interval_at(const std::string& text, size_t at) {
  static const std::regex interval("\\[[-+]?[0-9]+(\\.[0-9]+)?, [-+]?[0-9]+(\\.[0-9]+)?\\]");
  if (text[at] != '[') return std::string::npos;
  const size_t end = text.find(']', at);
  if (end == std::string::npos || !std::regex_match(text.begin() + at, text.begin() + end + 1, interval))
    return std::string::npos;
  return end;
}

// Where the span opened before `at` closes: the next `close` after at least one character; npos when none.
size_t closing(const std::string& text, size_t at, const std::string& close) {
  const size_t end = text.find(close, at);
  return end == at ? std::string::npos : end;
}

// A link "[text](#anchor)" starting at `at`: the index of its ')' and its parts; npos when there is none.
size_t link_at(const std::string& text, size_t at, std::string& label, std::string& target) {
  if (text[at] != '[') return std::string::npos;
  const size_t middle = text.find("](#", at);
  if (middle == std::string::npos || text.find(']', at) != middle) return std::string::npos;
  const size_t end = text.find(')', middle);
  if (end == std::string::npos) return std::string::npos;
  label = text.substr(at + 1, middle - at - 1), target = text.substr(middle + 2, end - middle - 2);
  return end;
}

// Inline Markdown (board_page.h) as HTML: **bold**, *italic*, `code`, <br>, \| and [text](#anchor).
std::string inline_html(const std::string& text) {
  std::string out, label, target;
  for (size_t i = 0; i < text.size(); ++i) {
    size_t end = std::string::npos;
    if (text.compare(i, 4, "<br>") == 0) {
      out += "<br>", i += 3;
    } else if (text.compare(i, 2, "\\|") == 0) {
      out += "|", ++i;
    } else if (text[i] == '`' && (end = closing(text, i + 1, "`")) != std::string::npos) {
      out += "<code>" + breakable(text.substr(i + 1, end - i - 1)) + "</code>", i = end;
    } else if (text.compare(i, 2, "**") == 0 && (end = closing(text, i + 2, "**")) != std::string::npos) {
      out += "<b>" + inline_html(text.substr(i + 2, end - i - 2)) + "</b>", i = end + 1;
    } else if (text[i] == '*' && text.compare(i, 2, "* ") != 0 &&
               (end = closing(text, i + 1, "*")) != std::string::npos) {
      out += "<i>" + inline_html(text.substr(i + 1, end - i - 1)) + "</i>", i = end;
    } else if ((end = interval_at(text, i)) != std::string::npos) {  // one piece: never "[-0.74, +" / "2.09]"
      out += "<span class=\"ci\">" + xml_escape(text.substr(i, end - i + 1)) + "</span>", i = end;
    } else if ((end = link_at(text, i, label, target)) != std::string::npos) {
      out += "<a href=\"" + xml_escape(target) + "\">" + inline_html(label) + "</a>", i = end;
    } else if (is_sign(text, i)) {
      out += xml_escape(text.substr(i, 1));  // a sign stays with its number
    } else {
      out += breakable(text.substr(i, 1));
    }
  }
  return out;
}

std::string base64(const std::string& bytes) {
  static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    for (int shift : {18, 12, 6, 0}) out += digits[(v >> shift) & 63];
  }
  if (i < bytes.size()) {
    unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += digits[(v >> 18) & 63];
    out += digits[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? digits[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string html_cell(const PageCell& cell, const char* tag) {
  std::string attributes;
  if (!cell.css.empty()) attributes += " class=\"" + cell.css + "\"";
  if (!cell.colour.empty()) attributes += " style=\"color:" + cell.colour + "\"";
  return std::string("<") + tag + attributes + ">" + inline_html(cell.text) + "</" + tag + ">";
}

std::string html_block(const PageBlock& block) {
  switch (block.kind) {
    case PageBlock::Kind::Heading: {
      const std::string tag = "h" + std::to_string(block.level - 1);  // "##" opens the board: the page's h1
      return "<" + tag + (block.id.empty() ? "" : " id=\"" + block.id + "\"") + ">" + inline_html(block.text) + "</" +
             tag + ">\n";
    }
    case PageBlock::Kind::Paragraph:
      return "<p>" + inline_html(block.text) + "</p>\n";
    case PageBlock::Kind::Table: {
      std::string out = "<table class=\"" + block.css + "\">\n<thead><tr>";
      for (const auto& cell : block.rows.front()) out += html_cell(cell, "th");
      out += "</tr></thead>\n<tbody>\n";
      for (size_t r = 1; r < block.rows.size(); ++r) {
        out += "<tr>";
        for (const auto& cell : block.rows[r]) out += html_cell(cell, cell.css == "row" ? "th" : "td");
        out += "</tr>\n";
      }
      return out + "</tbody></table>\n";
    }
    case PageBlock::Kind::List: {
      std::string out = "<ul>\n";
      for (const auto& [id, text] : block.items)
        out += "<li" + (id.empty() ? "" : " id=\"" + id + "\"") + ">" + inline_html(text) + "</li>\n";
      return out + "</ul>\n";
    }
    case PageBlock::Kind::Figure:
      return "<figure><img class=\"figure\" alt=\"" + xml_escape(block.figure.caption) +
             "\" src=\"data:image/svg+xml;base64," + base64(block.figure.svg) + "\"><figcaption>" +
             xml_escape(block.figure.caption) + "</figcaption></figure>\n";
  }
  return "";
}

// Wide tables wrap inside their cells (long names after / _ + =) instead of running off a narrow screen; figures
// scale to the width; the cell colours repeat the words "within" and "outside", never replace them.
const char* kStyle =
    "body{font-family:sans-serif;max-width:1200px;margin:1.5em auto;padding:0 1em;color:#222;line-height:1.4}"
    "h1{font-size:1.6em}h2{font-size:1.3em;margin-top:1.6em}h3{font-size:1.1em;margin-top:1.4em}"
    "table{border-collapse:collapse;margin:1em 0;font-size:13px}"
    "td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top;text-align:left;overflow-wrap:break-word}"
    "thead th{background:#f3f3f3}td.within{background:#eaf6ee}td.outside{background:#fdecea}"
    "td.not-trained{color:#666}code{font-size:92%;background:#f4f4f4;padding:0 2px}.ci{white-space:nowrap}"
    "figure{margin:1em 0}img.figure{max-width:100%;height:auto}figcaption{font-size:13px;color:#555}"
    "li{margin:.25em 0}li:target{background:#fff3c4}a{color:#0b5cad}"
    "@media print{body{max-width:none;margin:0;padding:0;font-size:10pt}table{font-size:8.5pt}"
    "tr,li,figure{break-inside:avoid}h1,h2,h3{break-after:avoid}a{color:inherit;text-decoration:none}}";

}  // namespace

std::string board_html(const Board& board) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
      "content=\"width=device-width, initial-scale=1\"><title>The claims board: " +
      xml_escape(board.file->paper) + "</title><style>" + kStyle + "</style></head><body>\n";
  for (const auto& block : board_page(board)) out += html_block(block);
  return out + "</body></html>\n";
}

}  // namespace repro
