#include "util/csv.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "util/error.h"

namespace repro {

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields(1);
  for (char c : line) {
    if (c == ',')
      fields.emplace_back();
    else if (c != '\r')
      fields.back() += c;
  }
  return fields;
}

double csv_value(const std::string& field, const std::string& where, const std::string& column) {
  if (field.empty()) return NAN;
  char* end = nullptr;
  const double value = std::strtod(field.c_str(), &end);
  if (end != field.c_str() + field.size() || std::isnan(value))
    throw Error(where + ": column '" + column + "' holds '" + field + "', not a number");
  return value;
}

int64_t csv_integer(const std::string& field, const std::string& where, const std::string& column) {
  const double value = csv_value(field, where, column);
  if (!std::isfinite(value) || value != std::floor(value) || value < 0)
    throw Error(where + ": column '" + column + "' holds '" + field + "', not a whole number");
  return static_cast<int64_t>(value);
}

std::string csv_number(double value, int digits) {
  if (!std::isfinite(value)) return "";
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
  return buffer;
}

std::vector<std::string> csv_lines(const std::string& text, const std::string& path) {
  std::vector<std::string> lines;
  std::string line;
  for (char c : text) {
    if (c != '\n') {
      line += c;
      continue;
    }
    lines.push_back(line);
    line.clear();
  }
  if (!line.empty()) throw Error(path + ":" + std::to_string(lines.size() + 1) + ": truncated line (no newline)");
  return lines;
}

}  // namespace repro
