#pragma once
// A paper file (experiments/paper/*.yaml) as one typed value: the paper's tables, its claims and the protocol
// ledger, read by one strict reader. Every map is checked against its keys: an unknown key (a misspelt `ledgr:`
// or `stauts:`), a key given twice, a cell, claim or ledger item given twice, a ledger item with two statuses and
// a profile that the experiment's table does not list as a reading are refused with FILE:LINE and what was
// expected. docs/report.md describes the format.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "record/metric.h"

namespace repro {

struct PaperCell {
  std::string row, column;   // model configuration and dataset, as in our specs
  double mean = 0, std = 0;  // std 0 when the paper prints none
  std::string printed;       // as printed, for parameter counts ("3.77M")
};

// One of our profiles that runs the paper's protocol for a table (the board judges claims on these runs), with
// what it reads: "paper: Table 4 as printed".
struct PaperReading {
  std::string profile, what;
};

// A row of ours that the paper does not have (a reference such as the bag-of-words floor): shown beside the
// paper's cells with what it is, never compared with them.
struct ReferenceRow {
  std::string row, what;
};

struct PaperTable {
  int number = 0;
  std::string experiment;  // our experiment name
  Metric metric = Metric::TestAcc;
  int n = 0;
  std::vector<PaperCell> cells;
  std::vector<PaperReading> readings;    // in the file's order: the first is the plain reading
  std::vector<ReferenceRow> references;  // the table's `references:` list
  std::string where;                     // file:line of the table
};

struct ClaimPair {
  std::string row, over;  // "row beats over"
};

struct Claim {
  std::string text;        // as the paper says it
  std::string source;      // where in the paper ("§5.1", "Table 2")
  std::string experiment;  // our experiment name (a paper table's)
  Metric metric = Metric::TestAcc;
  std::vector<ClaimPair> pairs;
  std::vector<std::string> datasets;
  double margin = 0;  // in the metric's unit (points of accuracy)
  std::string where;  // file:line of the claim
};

enum class LedgerStatus { Paper, Open, Differs };
const EnumNames<LedgerStatus>& enum_names(LedgerStatus);

struct LedgerItem {
  std::string experiment;  // our experiment name (a paper table's)
  std::string profile;     // the budget profile it describes ("" = every profile)
  std::string item, paper, ours;
  LedgerStatus status = LedgerStatus::Open;
  std::string note;                   // why, or what part differs ("" = none)
  std::vector<std::string> datasets;  // the columns whose cells it touches (empty: every column)
  std::string where;                  // file:line of the item
};

struct PaperFile {
  std::filesystem::path path;
  std::string paper;  // the paper's title
  std::vector<PaperTable> tables;
  std::vector<Claim> claims;
  std::vector<LedgerItem> ledger;
};

// Reads and checks the whole file; throws repro::Error naming FILE:LINE and what was expected.
PaperFile read_paper_file(const std::filesystem::path& path);

// The table giving `metric` of `experiment`; nullptr when the file has none.
const PaperTable* paper_table_for(const std::vector<PaperTable>& tables, const std::string& experiment, Metric metric);

}  // namespace repro
