// The board's markers in an --into file: found line by line outside fenced code blocks, checked (one begin and,
// after it, one end per pair, the pairs apart), then the text between them replaced.
#include <algorithm>
#include <filesystem>

#include "report/board/board.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace fs = std::filesystem;

namespace {

struct MarkerPair {
  std::string begin, end;
  const std::string* with;  // what goes between them
};

struct Line {
  size_t start = 0, end = 0;  // [start, end): the line without its '\n'
  bool code = false;          // inside a fenced code block (``` or ~~~), its fences included
};

// The fence a line opens or closes: its character repeated at least three times, after any indentation.
std::string fence_of(const std::string& line) {
  const std::string text = trim(line, " \t\r");
  if (text.size() < 3 || (text[0] != '`' && text[0] != '~')) return "";
  const size_t run = text.find_first_not_of(text[0]);
  return run != std::string::npos && run < 3 ? "" : text.substr(0, run == std::string::npos ? text.size() : run);
}

std::vector<Line> lines_of(const std::string& text) {
  std::vector<Line> lines;
  std::string open;  // the fence of the code block we are in ("" = none)
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string fence = fence_of(text.substr(start, end - start));
    const bool closes = !open.empty() && fence.size() >= open.size() && fence[0] == open[0] &&
                        trim(text.substr(start, end - start), " \t\r") == fence;
    lines.push_back({start, end, !open.empty() || !fence.empty()});
    if (closes)
      open.clear();
    else if (open.empty() && !fence.empty())
      open = fence;
    start = end + 1;
  }
  return lines;
}

// "line 5", "lines 5 and 40", "lines 5, 9 and 40", "no line".
std::string lines_named(const std::vector<size_t>& numbers) {
  if (numbers.empty()) return "no line";
  std::vector<std::string> parts;
  for (const size_t n : numbers) parts.push_back(std::to_string(n));
  if (parts.size() == 1) return "line " + parts.front();
  const std::string last = parts.back();
  parts.pop_back();
  return "lines " + join(parts, ", ") + " and " + last;
}

}  // namespace

std::string board_into_text(const fs::path& file, const std::string& board_text, const std::string& coverage_text) {
  const std::string name = "--into " + file.string();
  std::error_code ec;
  const auto status = fs::symlink_status(file, ec);
  if (status.type() == fs::file_type::not_found) throw Error(name + ": no such file");
  if (!fs::is_regular_file(status)) throw Error(name + ": not a regular file");
  const std::string text = read_regular_file(file, kSpecBytes, "an --into file (Markdown with the board's markers)");
  const std::vector<Line> lines = lines_of(text);
  const MarkerPair pairs[] = {{"<!-- repro board: begin -->", "<!-- repro board: end -->", &board_text},
                              {"<!-- repro board: coverage -->", "<!-- repro board: coverage end -->", &coverage_text}};
  struct Found {
    const MarkerPair* pair;
    size_t begin, end;  // line indexes
  };
  std::vector<Found> found;
  for (const auto& pair : pairs) {
    std::vector<size_t> begins, ends;  // 1-based line numbers
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].code) continue;
      const std::string line = trim(text.substr(lines[i].start, lines[i].end - lines[i].start), " \t\r");
      if (line == pair.begin) begins.push_back(i + 1);
      if (line == pair.end) ends.push_back(i + 1);
    }
    if (begins.empty() && ends.empty()) continue;
    if (begins.size() != 1 || ends.size() != 1 || ends.front() < begins.front())
      throw Error(name + ": '" + pair.begin + "' on " + lines_named(begins) + " and '" + pair.end + "' on " +
                  lines_named(ends) +
                  ": expected one of each, the begin first, each on a line of its own outside code blocks (the "
                  "file is left as it was)");
    found.push_back({&pair, begins.front() - 1, ends.front() - 1});
  }
  if (found.empty())
    throw Error(name +
                ": no '<!-- repro board: begin -->' … '<!-- repro board: end -->' or '<!-- repro board: "
                "coverage -->' … '<!-- repro board: coverage end -->' (each on a line of its own, outside code "
                "blocks) to replace");
  if (found.size() == 2 && found[0].begin < found[1].end && found[1].begin < found[0].end)
    throw Error(name + ": the board's markers (lines " + std::to_string(found[0].begin + 1) + "–" +
                std::to_string(found[0].end + 1) + ") and the coverage markers (lines " +
                std::to_string(found[1].begin + 1) + "–" + std::to_string(found[1].end + 1) +
                ") overlap: one pair would replace the other's markers; keep the pairs apart (the file is left as "
                "it was)");
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) { return a.begin > b.begin; });
  std::string out = text;
  for (const auto& f : found) {  // the later pair first: the earlier one's offsets stay valid
    std::string with = *f.pair->with;
    if (!with.empty() && with.back() != '\n') with += '\n';
    const size_t from = lines[f.begin].end + 1, to = lines[f.end].start;
    out.replace(from, to - from, with);
  }
  return out;
}

}  // namespace repro
