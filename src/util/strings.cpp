#include "util/strings.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>

namespace repro {

std::string trim(const std::string& text, const char* chars) {
  const auto first = text.find_first_not_of(chars);
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(chars);
  return text.substr(first, last - first + 1);
}

namespace {

// Splits on `separator`; with `brackets`, not inside [...].
std::vector<std::string> split_impl(const std::string& text, char separator, bool brackets) {
  std::vector<std::string> parts;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (brackets && c == '[') ++depth;
    if (brackets && c == ']') --depth;
    if (c == separator && depth == 0) {
      parts.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  parts.push_back(current);
  return parts;
}

}  // namespace

std::vector<std::string> split(const std::string& text, char separator) { return split_impl(text, separator, false); }

std::vector<std::string> split_lines(const std::string& text) {
  auto lines = split(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

std::vector<std::string> split_top_level(const std::string& text, char separator) {
  return split_impl(text, separator, true);
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string format_double(double value, const char* format) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

std::string fixed_digits(double value, int digits, bool sign) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, sign ? "%+.*f" : "%.*f", digits, value);
  return buffer;
}

std::string xml_escape(const std::string& text, bool apostrophe) {
  std::string out;
  for (const char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += apostrophe ? "&#39;" : "'";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += separator;
    out += parts[i];
  }
  return out;
}

void add_unique(std::vector<std::string>& list, const std::string& item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::string::npos;
  for (const auto& candidate : candidates) {
    const size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  // Accept up to a third of the word's length in edits (at least 2).
  const size_t limit = std::max<size_t>(2, word.size() / 3);
  return best_distance <= limit ? best : "";
}

namespace {

// The length of the UTF-8 sequence at `i` and its code point; 0 when the bytes there are not UTF-8 (a stray
// continuation byte, a sequence cut short, an overlong form, a surrogate, beyond U+10FFFF).
size_t utf8_at(const std::string& text, size_t i, uint32_t& code) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b = byte(i);
  if (b < 0x80) return code = b, 1;
  size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
  if (b >= 0xC2 && b <= 0xDF) {
    length = 2, code = b & 0x1F;
  } else if (b >= 0xE0 && b <= 0xEF) {
    length = 3, code = b & 0x0F;
    if (b == 0xE0) low = 0xA0;   // overlong
    if (b == 0xED) high = 0x9F;  // surrogates
  } else if (b >= 0xF0 && b <= 0xF4) {
    length = 4, code = b & 0x07;
    if (b == 0xF0) low = 0x90;   // overlong
    if (b == 0xF4) high = 0x8F;  // beyond U+10FFFF
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    const unsigned char c = byte(i + k);
    if (c < (k == 1 ? low : 0x80) || c > (k == 1 ? high : 0xBF)) return 0;
    code = (code << 6) | (c & 0x3F);
  }
  return length;
}

std::string hex_text(const char* format, unsigned value) {
  char text[16];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

}  // namespace

std::optional<Unprintable> first_unprintable(const std::string& text) {
  for (size_t i = 0; i < text.size();) {
    uint32_t code = 0;
    const size_t length = utf8_at(text, i, code);
    if (length == 0)
      return Unprintable{i, "the byte " + hex_text("0x%02x", static_cast<unsigned char>(text[i])) + " (not UTF-8)"};
    if (code < 0x20 || code == 0x7F) return Unprintable{i, "the control character " + hex_text("0x%02x", code)};
    if (code >= 0x80 && code <= 0x9F) return Unprintable{i, "the control character " + hex_text("U+%04X", code)};
    i += length;
  }
  return std::nullopt;
}

std::string escaped(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    uint32_t code = 0;
    const size_t length = utf8_at(text, i, code);
    const unsigned char byte = static_cast<unsigned char>(text[i]);
    if (length == 0 || code < 0x20 || code == 0x7F) {
      switch (byte) {
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\0':
          out += "\\0";
          break;
        default:
          out += hex_text("\\x%02x", byte);
      }
      ++i;
    } else if (code >= 0x80 && code <= 0x9F) {
      out += hex_text("\\u%04x", code);
      i += length;
    } else {
      out += text.substr(i, length);
      i += length;
    }
  }
  return out;
}

std::string safe_name(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool ok =
        std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '=' || c == '+';
    out += ok ? c : '_';
  }
  return out;
}

std::string format_number(double value) {
  if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 1e15) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
    return buffer;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.10g", value);
  return buffer;
}

std::string utc_now() { return utc_text(static_cast<double>(std::time(nullptr))); }

std::string utc_text(double unix_seconds) {
  const std::time_t at = static_cast<std::time_t>(unix_seconds);
  std::tm parts{};
  char buffer[32];
  if (!gmtime_r(&at, &parts)) return "?";
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return buffer;
}

}  // namespace repro
