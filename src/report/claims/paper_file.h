#pragma once
// A paper file (experiments/paper/*.yaml) as one typed value: the paper's tables, its claims and the protocol
// ledger, read by one strict reader. Every map is checked against its keys: an unknown key (a misspelt `ledgr:`
// or `stauts:`), a key given twice, a cell, claim or ledger item given twice, a ledger item with two statuses, a
// profile that the experiment's table does not list as a reading, a reading's setting that is no spec key or not
// a value of it, and two readings that could hold one run are refused with FILE:LINE and what was expected.
// docs/report.md describes the format.
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

// A way our runs read the paper's protocol for a table (the board judges claims on these runs): the runs of one
// of our profiles, or of those only the runs whose spec.resolved.yaml holds the settings `set:` names, with what it
// reads. `paper: Table 4 as printed` is the profile `paper`, named so; `paper_vectors: {profile: paper, set:
// {train.no_decay: vectors_embeddings}, what: …}` is the runs of `paper` that exempted every vector and embedding
// from weight decay. Two readings of one profile set one key to two values, so that no run is in both.
struct PaperReading {
  std::string name;     // how the board names it: the profile itself in the short form
  std::string profile;  // our profile whose runs it reads
  std::vector<std::pair<std::string, std::string>> settings;  // (key, canonical value) its runs resolved; none: all
  std::string what;
  std::string where;  // file:line of the reading
};

// "`paper`", or "`paper_vectors` (profile `paper`, train.no_decay: vectors_embeddings)": a reading as the board
// names it, with what selects its runs when its name alone does not say it.
std::string reading_label(const PaperReading& reading);

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
