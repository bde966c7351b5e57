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

double csv_rounded(double value) {
  return std::isfinite(value) ? std::strtod(csv_number(value).c_str(), nullptr) : value;
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

double CsvRow::value(size_t column) const { return csv_value(fields_.at(column), where_, columns_->at(column)); }

int64_t CsvRow::integer(size_t column) const { return csv_integer(fields_.at(column), where_, columns_->at(column)); }

std::vector<CsvRow> read_csv_table(const std::string& text, const std::string& path, const std::string& header) {
  const std::vector<std::string> lines = csv_lines(text, path);
  if (lines.empty()) throw Error(path + ": empty; expected the header " + header);
  const auto columns = std::make_shared<const std::vector<std::string>>(split_csv_line(header));
  if (split_csv_line(lines[0]) != *columns) throw Error(path + ":1: header '" + lines[0] + "', expected " + header);
  std::vector<CsvRow> rows;
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string where = path + ":" + std::to_string(i + 1);
    auto fields = split_csv_line(lines[i]);
    if (fields.size() != columns->size())
      throw Error(where + ": " + std::to_string(fields.size()) + " fields, expected " +
                  std::to_string(columns->size()));
    rows.emplace_back(where, std::move(fields), columns);
  }
  return rows;
}

std::string csv_quoted(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace repro
