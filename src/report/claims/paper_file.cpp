#include "report/claims/paper_file.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "data/registry.h"
#include "spec/keys.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace {

using Path = std::filesystem::path;

std::string line_of(const YAML::Node& node) { return std::to_string(node.Mark().line + 1); }

std::string at(const Path& path, const YAML::Node& node) { return path.string() + ":" + line_of(node) + ": "; }

// "line 11" of a "FILE:11" place in the same file.
std::string line_in(const std::string& where) { return "line " + where.substr(where.rfind(':') + 1); }

// A YAML map checked against the keys it may hold: every key known (a misspelling is named with the closest
// key), none twice, the required ones present. Values are read by key, each error at its own line.
class Map {
 public:
  Map(const Path& path, const YAML::Node& node, const std::string& what, const std::vector<std::string>& keys,
      const std::vector<std::string>& required)
      : path_(path), node_(node), what_(what) {
    if (!node.IsMap()) throw Error(at(path, node) + "a " + what + " is a map {" + join(keys, ", ") + "}");
    for (const auto& entry : node) {
      const YAML::Node& key = entry.first;
      if (!key.IsScalar()) throw Error(at(path, key) + "a key of a " + what + " must be a single word");
      const std::string name = key.Scalar();
      if (std::find(keys.begin(), keys.end(), name) == keys.end()) {
        const std::string guess = closest_match(name, keys);
        throw Error(at(path, key) + "unknown key '" + name + "' in a " + what +
                    (guess.empty() ? "; expected one of " + join(keys, ", ") : "; did you mean '" + guess + "'?"));
      }
      const auto [it, added] = entries_.emplace(name, entry.second);
      if (!added)
        throw Error(at(path, key) + "key '" + name + "' is given twice in this " + what + " (first at line " +
                    line_of(keys_.at(name)) + ")");
      keys_.emplace(name, key);
    }
    for (const auto& name : required)
      if (!has(name)) throw Error(at(path, node) + "a " + what + " needs '" + name + "'");
  }

  bool has(const std::string& key) const { return entries_.count(key) > 0; }
  const YAML::Node& value(const std::string& key) const { return entries_.at(key); }
  std::string where() const { return path_.string() + ":" + line_of(node_); }
  std::string at_value(const std::string& key) const { return at(path_, value(key)); }

  std::string text(const std::string& key) const {
    const YAML::Node& v = value(key);
    if (!v.IsScalar()) throw Error(at(path_, v) + key + " must be a single value");
    return v.Scalar();
  }
  std::string text_or(const std::string& key, const std::string& fallback) const {
    return has(key) ? text(key) : fallback;
  }
  double number(const std::string& key) const {
    const YAML::Node& v = value(key);
    double number = 0;
    if (!v.IsScalar() || !YAML::convert<double>::decode(v, number) || !std::isfinite(number))
      throw Error(at(path_, v) + key + " '" + (v.IsScalar() ? v.Scalar() : "") + "' is not a number");
    return number;
  }
  // A whole number (table numbers, n): a double outside int's range cast to int is undefined (found by tests/fuzz).
  int whole(const std::string& key) const {
    const double n = number(key);
    if (n != std::floor(n) || std::fabs(n) > 1e6)
      throw Error(at_value(key) + key + " '" + value(key).Scalar() + "' is not a whole number up to 1000000");
    return static_cast<int>(n);
  }
  // A non-empty list of single values, none twice.
  std::vector<std::string> texts(const std::string& key) const {
    const YAML::Node& v = value(key);
    if (!v.IsSequence() || v.size() == 0) throw Error(at(path_, v) + key + " must be a non-empty list");
    std::vector<std::string> items;
    for (const auto& item : v) {
      if (!item.IsScalar()) throw Error(at(path_, item) + key + " must be a single value");
      if (std::find(items.begin(), items.end(), item.Scalar()) != items.end())
        throw Error(at(path_, item) + key + ": '" + item.Scalar() + "' is given twice");
      items.push_back(item.Scalar());
    }
    return items;
  }
  // A list node (each item read by the caller).
  const YAML::Node& list(const std::string& key) const {
    const YAML::Node& v = value(key);
    if (!v.IsSequence()) throw Error(at(path_, v) + key + " must be a list");
    return v;
  }

 private:
  Path path_;
  YAML::Node node_;
  std::string what_;
  std::map<std::string, YAML::Node> entries_, keys_;
};

YAML::Node load_yaml(const Path& path) {
  const std::string text = read_regular_file(path, kSpecBytes, "a paper file (YAML)");
  if (text.find('\0') != std::string::npos) throw Error(path.string() + ": holds a NUL byte; a paper file is text");
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw Error(path.string() + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

// ---- tables

PaperCell read_cell(const Path& path, const YAML::Node& node, const std::vector<std::string>& datasets, Metric metric) {
  const Map c(path, node, "cell", {"row", "column", "mean", "std", "printed"}, {"row", "column", "mean"});
  PaperCell cell{c.text("row"), c.text("column"), c.number("mean"), 0, c.text_or("printed", "")};
  if (c.has("std")) cell.std = c.number("std");
  if (std::find(datasets.begin(), datasets.end(), cell.column) == datasets.end())
    throw Error(c.at_value("column") + "unknown dataset '" + cell.column + "' (known: " + join(datasets, ", ") + ")");
  if (cell.std < 0) throw Error(c.at_value("std") + "std " + c.text("std") + " is negative");
  const bool percent = is_percent(metric);
  if (cell.mean < 0 || (percent && cell.mean > 100))
    throw Error(c.at_value("mean") + "mean " + c.text("mean") + " is outside " +
                (percent ? "0-100 (accuracies are in %)" : "0-inf"));
  return cell;
}

Metric read_table_metric(const Map& t) {
  const std::string name = t.text_or("metric", "test_acc");
  std::vector<std::string> known{"params"};
  for (const Metric m : epoch_metrics()) known.push_back(name_of(m));
  if (std::find(known.begin(), known.end(), name) == known.end())
    throw Error(t.at_value("metric") + "unknown metric '" + name + "' (known: " + join(known, ", ") + ")");
  return enum_from_name<Metric>(name, "metric");
}

// A reading's `set:`: {KEY: VALUE, …}, each a key of the spec's table at a value it takes, as the key table writes
// it (a resolved spec holds no "auto": that is resolved per dataset before a run starts).
std::vector<std::pair<std::string, std::string>> read_reading_settings(const Path& path, const YAML::Node& node) {
  if (!node.IsMap() || node.size() == 0)
    throw Error(at(path, node) + "set is a map {KEY: VALUE} of the settings its runs resolved, e.g. "
                                 "{train.no_decay: paper}");
  std::vector<std::pair<std::string, std::string>> settings;
  for (const auto& entry : node) {
    const std::string where = path.string() + ":" + line_of(entry.first);
    if (!entry.first.IsScalar() || !entry.second.IsScalar())
      throw Error(where + ": a reading's setting is KEY: VALUE (two single values)");
    const std::string key = entry.first.Scalar();
    const KeyDef* def = find_key(key);
    if (!def) throw_unknown_key(key, where);
    const std::string value = canonical_value(*def, entry.second.Scalar(), where);
    if (value == "auto")
      throw Error(where + ": key '" + key + "': 'auto' is resolved per dataset before a run starts; a reading names "
                                            "the value its runs resolved");
    settings.emplace_back(key, value);
  }
  return settings;
}

// NAME: what it reads (the profile NAME), or NAME: {profile: P, set: {KEY: VALUE}, what: …}.
PaperReading read_reading(const Path& path, const YAML::Node& name, const YAML::Node& value) {
  if (!name.IsScalar())
    throw Error(at(path, name) + "a reading is PROFILE: what it reads, or NAME: {profile, set, what}");
  PaperReading r;
  r.name = r.profile = name.Scalar();
  r.where = path.string() + ":" + line_of(name);
  if (value.IsScalar()) {
    r.what = value.Scalar();
    return r;
  }
  const Map m(path, value, "reading", {"profile", "set", "what"}, {"what"});
  r.what = m.text("what");
  r.profile = m.text_or("profile", r.name);
  if (m.has("set")) r.settings = read_reading_settings(path, m.value("set"));
  return r;
}

// Whether no run can be in both: another profile, or one key set to two values.
bool disjoint(const PaperReading& a, const PaperReading& b) {
  if (a.profile != b.profile) return true;
  for (const auto& [key, value] : a.settings)
    for (const auto& [other_key, other_value] : b.settings)
      if (key == other_key && value != other_value) return true;
  return false;
}

std::vector<PaperReading> read_readings(const Path& path, const Map& t) {
  std::vector<PaperReading> readings;
  if (!t.has("readings")) return readings;
  const YAML::Node& node = t.value("readings");
  if (!node.IsMap() || node.size() == 0)
    throw Error(at(path, node) + "readings is a map {PROFILE: what it reads}, e.g. {paper: Table 4 as printed}");
  for (const auto& entry : node) {
    const PaperReading reading = read_reading(path, entry.first, entry.second);
    for (const auto& r : readings) {
      if (r.name == reading.name)
        throw Error(at(path, entry.first) + "reading '" + reading.name + "' is given twice");
      if (!disjoint(r, reading))
        throw Error(at(path, entry.first) + "readings '" + r.name + "' (" + line_in(r.where) + ") and '" +
                    reading.name + "' can hold the same runs of profile '" + reading.profile +
                    "': set one key to a different value in each (set: {KEY: VALUE})");
    }
    readings.push_back(reading);
  }
  return readings;
}

std::vector<ReferenceRow> read_references(const Path& path, const Map& t) {
  std::vector<ReferenceRow> references;
  if (!t.has("references")) return references;
  for (const auto& node : t.list("references")) {
    const Map r(path, node, "reference", {"row", "what"}, {"row", "what"});
    references.push_back({r.text("row"), r.text("what")});
  }
  return references;
}

PaperTable read_table(const Path& path, const YAML::Node& node) {
  const Map t(path, node, "table", {"table", "experiment", "metric", "n", "cells", "readings", "references"},
              {"table", "experiment", "cells"});
  PaperTable table;
  table.where = t.where();
  table.number = t.whole("table");
  table.experiment = t.text("experiment");
  if (table.experiment.empty())
    throw Error(t.at_value("experiment") + "table " + std::to_string(table.number) + " needs experiment");
  table.metric = read_table_metric(t);
  if (t.has("n")) table.n = t.whole("n");
  if (table.n < 0) throw Error(t.at_value("n") + "n " + t.text("n") + " is negative");
  table.readings = read_readings(path, t);
  table.references = read_references(path, t);
  const auto datasets = dataset_names();
  std::map<std::pair<std::string, std::string>, std::string> line_of_cell;  // (row, column) -> line
  for (const auto& c : t.list("cells")) {
    table.cells.push_back(read_cell(path, c, datasets, table.metric));
    const PaperCell& cell = table.cells.back();
    const auto [it, added] = line_of_cell.emplace(std::make_pair(cell.row, cell.column), line_of(c));
    if (!added)
      throw Error(at(path, c) + "cell (" + cell.row + ", " + cell.column + ") of table " +
                  std::to_string(table.number) + " repeats line " + it->second);
  }
  return table;
}

void check_tables(const Path& path, const std::vector<PaperTable>& tables) {
  for (size_t i = 0; i < tables.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      if (tables[i].number == tables[j].number)
        throw Error(tables[i].where + ": table " + std::to_string(tables[i].number) + " is given twice (first at " +
                    line_in(tables[j].where) + ")");
      if (tables[i].experiment == tables[j].experiment && tables[i].metric == tables[j].metric)
        throw Error(path.string() + ": tables " + std::to_string(tables[j].number) + " and " +
                    std::to_string(tables[i].number) + " both give " + name_of(tables[i].metric) + " of experiment " +
                    tables[i].experiment);
    }
}

// ---- claims

bool has_row(const PaperTable& table, const std::string& row) {
  return std::any_of(table.cells.begin(), table.cells.end(), [&](const PaperCell& c) { return c.row == row; });
}
bool has_column(const PaperTable& table, const std::string& column) {
  return std::any_of(table.cells.begin(), table.cells.end(), [&](const PaperCell& c) { return c.column == column; });
}

ClaimPair read_pair(const Path& path, const YAML::Node& node, const PaperTable& table) {
  if (!node.IsSequence() || node.size() != 2 || !node[0].IsScalar() || !node[1].IsScalar())
    throw Error(at(path, node) + "a pair is [ROW, OVER] (ROW beats OVER), got " +
                (node.IsScalar() ? "'" + node.Scalar() + "'" : std::string("another shape")));
  ClaimPair pair{node[0].Scalar(), node[1].Scalar()};
  for (const auto& row : {pair.row, pair.over})
    if (!has_row(table, row))
      throw Error(at(path, node) + "row '" + row + "' is not a row of the paper's Table " +
                  std::to_string(table.number));
  if (pair.row == pair.over) throw Error(at(path, node) + "a pair compares two rows; got '" + pair.row + "' twice");
  return pair;
}

Claim read_claim(const Path& path, const YAML::Node& node, const std::vector<PaperTable>& tables) {
  const Map c(path, node, "claim", {"claim", "source", "experiment", "metric", "pairs", "datasets", "margin"},
              {"claim", "experiment", "pairs", "datasets"});
  Claim claim;
  claim.where = c.where();
  claim.text = c.text("claim");
  claim.source = c.text_or("source", "");
  claim.experiment = c.text("experiment");
  if (c.has("metric")) claim.metric = enum_from_name<Metric>(c.text("metric"), c.at_value("metric") + "metric");
  const PaperTable* table = paper_table_for(tables, claim.experiment, claim.metric);
  if (!table)
    throw Error(c.at_value("experiment") + "no table of this file gives " + name_of(claim.metric) + " of experiment '" +
                claim.experiment + "'");
  if (c.has("margin")) claim.margin = c.number("margin");
  const YAML::Node& pairs = c.list("pairs");
  if (pairs.size() == 0) throw Error(c.at_value("pairs") + "pairs must be a non-empty list of [ROW, OVER]");
  for (const auto& pair : pairs) {
    claim.pairs.push_back(read_pair(path, pair, *table));
    for (size_t i = 0; i + 1 < claim.pairs.size(); ++i)
      if (claim.pairs[i].row == claim.pairs.back().row && claim.pairs[i].over == claim.pairs.back().over)
        throw Error(at(path, pair) + "pair [" + claim.pairs[i].row + ", " + claim.pairs[i].over + "] is given twice");
  }
  claim.datasets = c.texts("datasets");
  for (const auto& dataset : claim.datasets)
    if (!has_column(*table, dataset))
      throw Error(c.at_value("datasets") + "dataset '" + dataset + "' is not a column of the paper's Table " +
                  std::to_string(table->number));
  return claim;
}

// ---- ledger

LedgerItem read_ledger_item(const Path& path, const YAML::Node& node, const std::vector<PaperTable>& tables) {
  const Map m(path, node, "ledger item",
              {"experiment", "profile", "item", "paper", "ours", "status", "note", "datasets"},
              {"experiment", "item", "paper", "ours", "status"});
  LedgerItem item;
  item.where = m.where();
  item.experiment = m.text("experiment");
  std::vector<const PaperTable*> of_experiment;
  for (const auto& t : tables)
    if (t.experiment == item.experiment) of_experiment.push_back(&t);
  if (of_experiment.empty())
    throw Error(m.at_value("experiment") + "experiment '" + item.experiment + "' has no table in this file");
  item.item = m.text("item");
  item.paper = m.text("paper");
  item.ours = m.text("ours");
  item.status = enum_from_name<LedgerStatus>(m.text("status"), m.at_value("status") + "status");
  item.note = m.text_or("note", "");
  item.profile = m.text_or("profile", "");
  if (m.has("profile")) {
    std::vector<std::string> profiles;
    for (const auto* t : of_experiment)
      for (const auto& r : t->readings) add_unique(profiles, r.profile);
    if (std::find(profiles.begin(), profiles.end(), item.profile) == profiles.end())
      throw Error(m.at_value("profile") + "profile '" + item.profile + "' is not a reading of experiment " +
                  item.experiment +
                  (profiles.empty() ? " (its table lists no readings:)"
                                    : " (its table's readings: " + join(profiles, ", ") + ")"));
  }
  if (m.has("datasets")) {
    item.datasets = m.texts("datasets");
    for (const auto& dataset : item.datasets)
      if (std::none_of(of_experiment.begin(), of_experiment.end(),
                       [&](const PaperTable* t) { return has_column(*t, dataset); }))
        throw Error(m.at_value("datasets") + "dataset '" + dataset + "' is not a column of experiment " +
                    item.experiment + "'s table");
  }
  return item;
}

// One item per (experiment, item) and profile: the same item for overlapping profiles (one of them "every
// profile") would print twice, and with two statuses contradict itself.
void check_ledger(const std::vector<LedgerItem>& ledger) {
  for (size_t i = 0; i < ledger.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      const LedgerItem &a = ledger[j], &b = ledger[i];
      const bool overlap = a.profile.empty() || b.profile.empty() || a.profile == b.profile;
      if (a.experiment != b.experiment || a.item != b.item || !overlap) continue;
      if (a.status != b.status)
        throw Error(b.where + ": ledger item '" + b.item + "' of " + b.experiment +
                    " has two statuses: " + name_of(a.status) + " (" + line_in(a.where) + ") and " + name_of(b.status));
      throw Error(b.where + ": ledger item '" + b.item + "' of " + b.experiment + " is given twice (first at " +
                  line_in(a.where) + ")");
    }
}

template <typename Read>
auto read_list(const Map& root, const char* key, Read read) {
  std::vector<decltype(read(YAML::Node()))> items;
  if (!root.has(key)) return items;
  for (const auto& node : root.list(key)) items.push_back(read(node));
  return items;
}

}  // namespace

const EnumNames<LedgerStatus>& enum_names(LedgerStatus) {
  static const EnumNames<LedgerStatus> names = {
      {LedgerStatus::Paper, "paper"}, {LedgerStatus::Open, "open"}, {LedgerStatus::Differs, "differs"}};
  return names;
}

std::string reading_label(const PaperReading& reading) {
  std::vector<std::string> parts;
  if (reading.profile != reading.name) parts.push_back("profile `" + reading.profile + "`");
  for (const auto& [key, value] : reading.settings) parts.push_back(key + ": " + value);
  return "`" + reading.name + "`" + (parts.empty() ? "" : " (" + join(parts, ", ") + ")");
}

const PaperTable* paper_table_for(const std::vector<PaperTable>& tables, const std::string& experiment, Metric metric) {
  for (const auto& table : tables)
    if (table.experiment == experiment && table.metric == metric) return &table;
  return nullptr;
}

PaperFile read_paper_file(const Path& path) {
  const YAML::Node root_node = load_yaml(path);
  if (!root_node.IsMap())
    throw Error(path.string() + ": expected a map with 'tables' (and 'paper', 'claims', 'ledger')");
  PaperFile file;
  file.path = path;
  try {
    const Map root(path, root_node, "paper file", {"paper", "tables", "claims", "ledger"}, {"tables"});
    file.paper = root.text_or("paper", "");
    file.tables = read_list(root, "tables", [&](const YAML::Node& n) { return read_table(path, n); });
    check_tables(path, file.tables);
    file.claims = read_list(root, "claims", [&](const YAML::Node& n) { return read_claim(path, n, file.tables); });
    for (size_t i = 0; i < file.claims.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (file.claims[i].text == file.claims[j].text)
          throw Error(file.claims[i].where + ": claim '" + file.claims[i].text + "' is given twice (first at " +
                      line_in(file.claims[j].where) + ")");
    file.ledger =
        read_list(root, "ledger", [&](const YAML::Node& n) { return read_ledger_item(path, n, file.tables); });
    check_ledger(file.ledger);
  } catch (const YAML::Exception& e) {
    throw Error(path.string() + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return file;
}

}  // namespace repro
