#pragma once
// Small string helpers shared by the spec parser, the CLI and the reports.
#include <optional>
#include <string>
#include <vector>

namespace repro {

// Without the `chars` at either end (default: ASCII space, tab, CR, LF).
std::string trim(const std::string& text, const char* chars = " \t\r\n");
std::vector<std::string> split(const std::string& text, char separator);
// Lines without their newline characters; no empty last line.
std::vector<std::string> split_lines(const std::string& text);
// Splits on `separator` outside [...] brackets: "a,[1,2],b" -> a | [1,2] | b.
std::vector<std::string> split_top_level(const std::string& text, char separator);
bool starts_with(const std::string& text, const std::string& prefix);
bool ends_with(const std::string& text, const std::string& suffix);
std::string join(const std::vector<std::string>& parts, const std::string& separator);
// Appends `item` unless `list` already holds it (keeps first-seen order).
void add_unique(std::vector<std::string>& list, const std::string& item);
size_t edit_distance(const std::string& a, const std::string& b);
// The candidate closest to `word` by edit distance, or "" when none is close.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);
// `text` safe in HTML/SVG text and double-quoted attributes: & < > " as entities; with `apostrophe`, ' too
// (&#39;, for single-quoted attributes).
std::string xml_escape(const std::string& text, bool apostrophe = false);
// The first character of `text` that a one-line name cannot hold: a C0 control character (a newline, a tab, ...),
// DEL, a C1 control character (U+0080 to U+009F, e.g. YAML's "\N" or "\x9b") or a byte that is not UTF-8.
struct Unprintable {
  size_t at = 0;     // its byte offset
  std::string what;  // "the control character 0x0a", "the control character U+009B", "the byte 0xff (not UTF-8)"
};
std::optional<Unprintable> first_unprintable(const std::string& text);
// `text` for a one-line message: the characters first_unprintable finds written as \n, \r, \t, \0, \xHH (a C0
// one, DEL, a byte that is not UTF-8) or \u0085 (a C1 one); the rest as it is.
std::string escaped(const std::string& text);
// Replaces characters unsafe in folder names with '_'.
std::string safe_name(const std::string& text);
// `value` printed with one printf conversion: format_double(0.5, "%.2f") -> "0.50".
std::string format_double(double value, const char* format);
// `value` with `digits` decimals ("%.*f"), signed when `sign` ("%+.*f"): fixed_digits(0.5, 2, true) -> "+0.50".
std::string fixed_digits(double value, int digits, bool sign = false);
// Formats a number compactly: 0.0003 -> "3e-04", 0.5 -> "0.5", 5.333333 -> "5.333333".
std::string format_number(double value);

// The current time as ISO 8601 UTC, e.g. 2026-11-21T09:30:00Z.
std::string utc_now();
// A Unix time (seconds) in the same form.
std::string utc_text(double unix_seconds);

}  // namespace repro
