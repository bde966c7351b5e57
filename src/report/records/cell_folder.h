#pragma once
// One cell, one folder: where several results folders hold runs of one table cell (a model configuration on a
// dataset, of one experiment and profile), a table counts the runs of one of them, never a merge of both (a seed
// in two folders would count twice, and two folders' seeds are two studies). The claims board and `repro report`
// choose by this one rule: the paper's row itself before a swept configuration of it (the board's paper rows), then
// the most runs counted, then the readings' order (the board's), then the folder's name. The other folders' runs
// are listed, never counted.
#include <cstdint>
#include <string>

namespace repro {

struct CellHolder {
  std::string folder;   // the results folder, '/'-separated ("table2/gpu")
  int64_t counted = 0;  // its runs of the cell that a table counts (the report: its complete runs)
  bool swept = false;   // the board: a swept configuration of the paper's row, not the row itself
  size_t reading = 0;   // the board: the place of the folder's profile among the table's readings
};

// Whether `a`'s runs are counted before `b`'s.
bool held_before(const CellHolder& a, const CellHolder& b);

// The rule in words, for the lines that name the folders not counted.
inline constexpr const char* kCellFolderRule =
    "one cell, one folder: the one with the most complete runs of it, then by name, as the claims board takes a cell";

}  // namespace repro
