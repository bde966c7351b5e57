#pragma once
// The numeric CSV files repro writes and reads back (metrics.csv, steps.csv): comma
// separated, no quoting, a number or an empty field (= not measured, NaN).
#include <cstdint>
#include <string>
#include <vector>

namespace repro {

// The fields of one line ('\r' dropped).
std::vector<std::string> split_csv_line(const std::string& line);
// A field: a number, or NaN for an empty one; throws repro::Error "WHERE: column 'C' holds 'F', not a number".
double csv_value(const std::string& field, const std::string& where, const std::string& column);
// A whole number >= 0; throws as csv_value.
int64_t csv_integer(const std::string& field, const std::string& where, const std::string& column);
// `value` with `digits` significant digits; "" for NaN or infinity.
std::string csv_number(double value, int digits = 8);
// The lines of a file's text; throws naming `path` when the last one has no newline (a truncated file).
std::vector<std::string> csv_lines(const std::string& text, const std::string& path);

}  // namespace repro
