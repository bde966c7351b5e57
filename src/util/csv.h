#pragma once
// The numeric CSV files repro writes and reads back (metrics.csv, steps.csv): comma
// separated, no quoting, a number or an empty field (= not measured, NaN).
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace repro {

// The fields of one line ('\r' dropped).
std::vector<std::string> split_csv_line(const std::string& line);
// A field: a number, or NaN for an empty one; throws repro::Error "WHERE: column 'C' holds 'F', not a number".
double csv_value(const std::string& field, const std::string& where, const std::string& column);
// A whole number >= 0; throws as csv_value.
int64_t csv_integer(const std::string& field, const std::string& where, const std::string& column);
// `value` with `digits` significant digits; "" for NaN or infinity. 9 by default: the fewest that bring every
// float32 back bit for bit (FLT_DECIMAL_DIG), so a TensorBoard scalar (a float32) equals its CSV field. Files
// written with 8 (repro 0.4.0 and earlier) read the same.
std::string csv_number(double value, int digits = 9);
// `value` as csv_number writes it and csv_value reads it back (NaN and infinities unchanged).
double csv_rounded(double value);
// A text field of a CSV file read by other tools (report --format csv, --runs): as is, or in double quotes (quotes
// doubled) when it holds a comma, a quote or a line break (RFC 4180, as Python's csv module reads it).
std::string csv_quoted(const std::string& text);
// The lines of a file's text; throws naming `path` when the last one has no newline (a truncated file).
std::vector<std::string> csv_lines(const std::string& text, const std::string& path);

// One data line of a CSV table: its fields, read by column index; errors name "PATH:LINE" and the column.
class CsvRow {
 public:
  CsvRow(std::string where, std::vector<std::string> fields, std::shared_ptr<const std::vector<std::string>> columns)
      : where_(std::move(where)), fields_(std::move(fields)), columns_(std::move(columns)) {}
  double value(size_t column) const;                   // csv_value of the field
  int64_t integer(size_t column) const;                // csv_integer of the field
  const std::string& where() const { return where_; }  // "PATH:LINE"

 private:
  std::string where_;
  std::vector<std::string> fields_;                          // as many as the header's columns
  std::shared_ptr<const std::vector<std::string>> columns_;  // the header's names
};

// The data lines of a CSV file's text whose first line must be `header` exactly, each with as many fields as the
// header. Throws repro::Error "PATH: empty; ...", "PATH:1: header '...', expected ..." or "PATH:N: K fields, ...".
std::vector<CsvRow> read_csv_table(const std::string& text, const std::string& path, const std::string& header);

}  // namespace repro
