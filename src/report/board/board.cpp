#include "report/board/board.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "record/folder.h"
#include "record/run_record.h"
#include "report/claims/paper.h"
#include "report/records/cell_folder.h"
#include "report/tables/table.h"
#include "spec/grid.h"
#include "spec/run_spec.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace fs = std::filesystem;

namespace {

// Every folder below `root` holding <dataset>/<model>/seed_<n>/summary.json, by its name relative to the root;
// temporary folders (repro collect's staging) skipped and named.
std::vector<fs::path> results_folders(const fs::path& root) {
  std::set<fs::path> folders;
  for (const auto& summary : find_record_files(root).summaries) {
    const fs::path folder = summary.parent_path().parent_path().parent_path().parent_path();
    if (folder.lexically_relative(root).empty() || starts_with(folder.lexically_relative(root).string(), ".."))
      continue;
    folders.insert(folder);
  }
  return {folders.begin(), folders.end()};
}

SampleSummary summary_of(const Cell& cell) { return {cell.mean, cell.std, static_cast<long long>(cell.values.size())}; }

// The spec row of a run: plan.json names it; a record found without a plan is its own row.
const std::string& row_of(const RunResult& run) { return run.row.empty() ? run.model_config : run.row; }

// The resolved settings of each run of `results` that a reading naming settings could hold (its experiment's
// table has such a reading of its profile); a run whose spec.resolved.yaml cannot be read is named on stderr and
// left out (it is in no such reading).
std::map<std::string, Config> resolved_settings(const PaperFile& file, const ExperimentResults& results) {
  const bool wanted = std::any_of(file.tables.begin(), file.tables.end(), [&](const PaperTable& t) {
    return t.experiment == results.name && std::any_of(t.readings.begin(), t.readings.end(), [&](const auto& r) {
             return r.profile == results.profile && !r.settings.empty();
           });
  });
  std::map<std::string, Config> resolved;
  if (!wanted) return resolved;
  for (const auto& run : results.runs) {
    if (run.path.empty() || !(is_counted(run) || is_bad_record(run))) continue;
    try {
      resolved.emplace(run.path, read_run_spec(RunFolder(run.path).spec_path()).config);
    } catch (const std::exception& e) {  // a bad record is named among the records not counted
      if (is_counted(run)) spdlog::warn("{}: in no reading that names settings: {}", run.path, error_text(e));
    }
  }
  return resolved;
}

// Whether `run` is one of `reading`'s: every setting the reading names at its value in the run's resolved spec
// (a reading that names none holds every run of its profile; the caller matches the profile).
bool in_reading(const BoardFolder& folder, const PaperReading* reading, const RunResult& run) {
  if (!reading || reading->settings.empty()) return true;
  const auto resolved = folder.resolved.find(run.path);
  if (resolved == folder.resolved.end()) return false;  // its spec.resolved.yaml cannot be read: no setting known
  return std::all_of(reading->settings.begin(), reading->settings.end(),
                     [&](const auto& setting) { return resolved->second.text(setting.first) == setting.second; });
}

// Whether a run's configuration is a swept one of `row` under `reading`: sweep values beyond the settings the
// reading names ("Transformer+no_decay=paper" is the row itself under a reading that sets train.no_decay: paper).
bool is_swept(const RunResult& run, const std::string& row, const PaperReading* reading) {
  if (run.model_config == row) return false;
  SweepValues beyond;
  for (const auto& value : run.sweep) {
    const bool named = reading && std::any_of(reading->settings.begin(), reading->settings.end(),
                                              [&](const auto& s) { return axis_label(s.first) == value.first; });
    if (!named) beyond.push_back(value);
  }
  return !beyond.empty() || RunId::compose_model_config(row, run.sweep) != run.model_config;
}

// The sources of (row, column) in `folder` under `reading` (nullptr: every run of the folder): each model
// configuration of that row with counted runs there, or with records none of which can be counted (n = 0:
// corrupt, inconsistent, links; named, never judged).
std::vector<CellSource> sources_in(const BoardFolder& folder, const PaperReading* reading, const std::string& row,
                                   const std::string& column) {
  const auto of_cell = [&](const RunResult& run) {
    return run.dataset == column && in_reading(folder, reading, run) && (is_counted(run) || is_bad_record(run));
  };
  std::vector<std::string> configs;
  for (const auto& run : folder.selected.runs)
    if (row_of(run) == row && of_cell(run)) add_unique(configs, run.model_config);
  std::vector<CellSource> sources;
  for (const auto& config : configs) {
    CellSource s;
    s.folder = &folder, s.model_config = config;
    s.reading = reading ? reading->name : folder.selected.profile;
    const auto of_reading = [&](const RunResult& run) { return in_reading(folder, reading, run); };
    const Cell selected = make_cell(folder.selected, config, column, of_reading);
    s.selected = summary_of(selected);
    s.last = summary_of(make_cell(folder.last, config, column, of_reading));
    s.not_counted = status_text(selected, folder.selected.metric);
    std::vector<std::string> devices;
    for (const auto& run : folder.selected.runs) {
      if (run.model_config != config || !of_cell(run)) continue;
      s.swept = is_swept(run, row, reading);
      if (is_counted(run)) add_unique(devices, short_device(run.device));
      if (is_bad_record(run)) s.bad_records.push_back(run.path);
    }
    s.devices = join(devices, " + ");
    sources.push_back(s);
  }
  return sources;
}

// The cell's sources under `readings`, best first (report/records/cell_folder.h): the paper's row itself before a
// swept configuration of it, then the most runs, then the readings' order, then the folder's name.
std::vector<CellSource> cell_sources(const std::vector<BoardFolder>& folders, const PaperTable& table,
                                     const std::vector<const PaperReading*>& readings, const std::string& row,
                                     const std::string& column) {
  std::vector<CellSource> all;
  std::vector<size_t> place;  // each source's reading, by its place in `readings`
  for (size_t i = 0; i < readings.size(); ++i)
    for (const auto& folder : folders) {
      if (folder.selected.name != table.experiment || folder.selected.metric != table.metric) continue;
      if (folder.selected.profile != readings[i]->profile) continue;
      for (auto& s : sources_in(folder, readings[i], row, column)) all.push_back(s), place.push_back(i);
    }
  std::vector<size_t> order(all.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto holder = [&](size_t i) {  // one cell, one folder: the rule report uses too
    return CellHolder{all[i].folder->name, all[i].selected.n, all[i].swept, place[i]};
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return held_before(holder(a), holder(b)); });
  std::stable_partition(order.begin(), order.end(), [&](size_t i) { return all[i].selected.n > 0; });
  std::vector<CellSource> sorted;
  for (const size_t i : order) sorted.push_back(all[i]);
  return sorted;
}

std::vector<const PaperReading*> readings_of(const PaperTable& table) {
  std::vector<const PaperReading*> readings;
  for (const auto& r : table.readings) readings.push_back(&r);
  return readings;
}

// Whether a reading of `table` reads runs of `profile`.
bool is_reading_profile(const PaperTable& table, const std::string& profile) {
  return std::any_of(table.readings.begin(), table.readings.end(),
                     [&](const PaperReading& r) { return r.profile == profile; });
}

// Whether a ledger item touches a cell under a reading of `profile`.
bool touches(const LedgerItem& item, const std::string& experiment, const std::string& profile,
             const std::string& column) {
  if (item.experiment != experiment) return false;
  if (!item.profile.empty() && item.profile != profile) return false;
  const bool named = std::find(item.datasets.begin(), item.datasets.end(), column) != item.datasets.end();
  // A differs item touches every cell unless it names its columns; any other item only the columns it names.
  return named || (item.status == LedgerStatus::Differs && item.datasets.empty());
}

BoardTable board_table(const PaperFile& file, const PaperTable& table, const std::vector<BoardFolder>& folders) {
  BoardTable out;
  out.paper = &table;
  const auto readings = readings_of(table);
  for (const auto& paper_cell : table.cells) {
    BoardCell cell;
    cell.paper = &paper_cell;
    auto sources = cell_sources(folders, table, readings, paper_cell.row, paper_cell.column);
    if (!sources.empty() && sources.front().selected.n == 0) {  // records, none counted
      cell.uncounted = sources.front();
      cell.also.assign(sources.begin() + 1, sources.end());
    } else if (!sources.empty()) {
      cell.source = sources.front();
      cell.reading = sources.front().reading;
      cell.also.assign(sources.begin() + 1, sources.end());
      const SampleSummary& s = cell.source->selected;
      cell.status =
          within_paper_band(s.mean, s.n < 2 ? NAN : s.std, paper_cell) ? CellStatus::Within : CellStatus::Outside;
    }
    const std::string profile = cell.source ? cell.source->folder->selected.profile
                                            : (readings.empty() ? "" : readings.front()->profile);
    for (size_t i = 0; i < file.ledger.size(); ++i)
      if (touches(file.ledger[i], table.experiment, profile, paper_cell.column)) cell.ledger.push_back(i);
    out.cells.push_back(cell);
  }
  return out;
}

// The validation accuracy of `folder`'s experiment (the runs the board read at the test metric), for choosing a
// reference row's swept configuration; empty results when it cannot be read.
ExperimentResults validation_of(const fs::path& root, const BoardFolder& folder) {
  for (auto& results : collect_results(root / folder.name, Metric::ValAcc, RecordEpoch::Selected))
    if (results.name == folder.selected.name && results.profile == folder.selected.profile) return results;
  return {};
}

// Among a row's configurations in one folder, the one with the best mean validation accuracy on `column` (the first
// in the folder's order on a tie); its source, and how many there were.
std::optional<BoardReference> reference_in(const fs::path& root, const BoardFolder& folder, const ReferenceRow& row,
                                           const std::string& column) {
  auto sources = sources_in(folder, nullptr, row.row, column);  // reference rows: every run of a reading's profile
  sources.erase(std::remove_if(sources.begin(), sources.end(), [](const CellSource& s) { return s.selected.n == 0; }),
                sources.end());  // a configuration none of whose records is counted is no candidate
  if (sources.empty()) return std::nullopt;
  BoardReference out;
  out.reference = &row, out.column = column, out.source = sources.front();
  out.candidates = static_cast<int>(sources.size());
  if (sources.size() == 1 && sources.front().model_config == row.row) return out;  // not swept
  const ExperimentResults validation = validation_of(root, folder);
  const auto sweep_values = [&](const std::string& config) {
    return starts_with(config, row.row + "+") ? config.substr(row.row.size() + 1) : config;
  };
  double best = -INFINITY;
  std::vector<double> means;
  for (const auto& source : sources) {
    const Cell cell = make_cell(validation, source.model_config, column);
    means.push_back(cell.values.empty() ? NAN : cell.mean);
    if (cell.values.empty() || !(cell.mean > best)) continue;  // on a tie the first in the sweep's order stays
    best = cell.mean;
    out.source = source;
  }
  if (std::isinf(best)) return std::nullopt;   // no validation accuracy to choose on: not shown
  for (size_t i = 0; i < sources.size(); ++i)  // equal means, up to the last bits of a sum in another order
    if (sources[i].model_config != out.source.model_config && std::fabs(means[i] - best) <= 1e-9 * std::fabs(best))
      out.tied.push_back(sweep_values(sources[i].model_config));
  out.chosen = sweep_values(out.source.model_config);
  return out;
}

// The table's reference rows on each of its columns, from the folder of its readings with the most runs there.
std::vector<BoardReference> board_references(const fs::path& root, const PaperTable& table,
                                             const std::vector<BoardFolder>& folders) {
  std::vector<std::string> columns;
  for (const auto& cell : table.cells) add_unique(columns, cell.column);
  std::vector<BoardReference> out;
  for (const auto& reference : table.references)
    for (const auto& column : columns) {
      std::optional<BoardReference> best;
      for (const auto& folder : folders) {
        if (folder.selected.name != table.experiment || folder.selected.metric != table.metric) continue;
        if (!is_reading_profile(table, folder.selected.profile)) continue;
        const auto found = reference_in(root, folder, reference, column);
        if (found && (!best || found->source.selected.n > best->source.selected.n)) best = found;
      }
      if (best) out.push_back(*best);
    }
  return out;
}

std::optional<SampleSummary> printed_sample(const PaperTable& table, const std::string& row,
                                            const std::string& column) {
  for (const auto& cell : table.cells)
    if (cell.row == row && cell.column == column) return SampleSummary{cell.mean, cell.std, table.n};
  return std::nullopt;
}

ReadingVerdict judge_reading(const Claim& claim, const PaperTable& table, const PaperReading& reading,
                             const std::vector<BoardFolder>& folders) {
  ReadingVerdict out;
  out.reading = reading.name;
  const auto sources_of = [&](const std::string& row, const std::string& dataset) {
    return cell_sources(folders, table, {&reading}, row, dataset);
  };
  const auto source = [&](const std::string& row, const std::string& dataset) -> std::optional<CellSource> {
    auto sources = sources_of(row, dataset);
    if (sources.empty() || sources.front().selected.n == 0) return std::nullopt;
    return sources.front();
  };
  const EffectOf paper_effect = [&](const ClaimPair& pair, const std::string& dataset) -> std::optional<double> {
    const auto row = printed_sample(table, pair.row, dataset), over = printed_sample(table, pair.over, dataset);
    if (!row || !over) return std::nullopt;
    return row->mean - over->mean;
  };
  const auto at = [&](bool last) {
    return [&, last](const std::string& row, const std::string& dataset) -> std::optional<SampleSummary> {
      const auto s = source(row, dataset);
      if (!s) return std::nullopt;
      return last ? s->last : s->selected;
    };
  };
  out.selected = evaluate_claim(claim, at(false), paper_effect);
  out.last = evaluate_claim(claim, at(true), paper_effect);
  for (const auto& c : out.selected.comparisons) {
    std::vector<std::string> where, uncounted;
    for (const auto& row : {c.pair.row, c.pair.over}) {
      if (const auto s = source(row, c.dataset)) add_unique(where, cell_source_text(*s, row));
      const auto all = sources_of(row, c.dataset);
      if (!all.empty() && all.front().selected.n == 0) add_unique(uncounted, uncounted_text(all.front(), c.dataset));
    }
    out.sources.push_back(join(where, "; "));
    out.uncounted.push_back(join(uncounted, "; "));
  }
  return out;
}

BoardClaim board_claim(const PaperFile& file, const Claim& claim, const std::vector<BoardFolder>& folders) {
  BoardClaim out;
  out.claim = &claim;
  out.table = paper_table_for(file.tables, claim.experiment, claim.metric);
  if (!out.table) throw Error(claim.where + ": no table of " + claim.experiment + " gives " + name_of(claim.metric));
  out.paper = evaluate_claim(claim, [&](const std::string& row, const std::string& dataset) {
    return printed_sample(*out.table, row, dataset);
  });
  for (const auto& reading : out.table->readings) {
    out.readings.push_back(judge_reading(claim, *out.table, reading, folders));
    if (out.verdict_reading.empty() && out.readings.back().selected.verdict != Verdict::NotTested) {
      out.verdict = out.readings.back().selected.verdict;
      out.verdict_reading = reading.name;
    }
  }
  return out;
}

// The lines of the records of judged folders that cannot be counted ("corrupt: PATH: why"), each once.
std::vector<std::string> judged_bad_records(const Board& board) {
  std::vector<std::string> lines;
  for (const auto& folder : board.folders) {
    if (!is_judged_folder(board, folder)) continue;
    for (const auto& run : folder.selected.runs)
      if (is_bad_record(run)) add_unique(lines, name_of(run.state) + ": " + run.problem);
  }
  return lines;
}

}  // namespace

bool is_judged_folder(const Board& board, const BoardFolder& folder) {
  for (const auto& t : board.tables)
    if (t.paper->experiment == folder.selected.name && t.paper->metric == folder.selected.metric &&
        is_reading_profile(*t.paper, folder.selected.profile))
      return true;
  return false;
}

bool is_board_table(const PaperTable& table) { return is_epoch_metric(table.metric); }

std::string cell_source_text(const CellSource& s, const std::string& row) {
  return s.folder->name + (s.model_config == row ? "" : ": " + s.model_config) + " (" + s.devices + ")";
}

std::string uncounted_text(const CellSource& s, const std::string& dataset) {
  return s.model_config + " on " + dataset + " in " + s.folder->name + ": " + s.not_counted + ", none counted (" +
         join(s.bad_records, ", ") + ")";
}

Board build_board(const PaperFile& file, const fs::path& root, const std::string& command) {
  if (!fs::is_directory(root)) throw Error("--board: " + root.string() + " is not a folder of results");
  std::set<Metric> metrics;  // the accuracy tables' (parameter counts are repro params --compare's)
  for (const auto& table : file.tables)
    if (is_board_table(table)) metrics.insert(table.metric);
  Board board;
  board.file = &file;
  board.root = root;
  board.command = command;
  for (const auto& folder : results_folders(root)) {
    const std::string name = folder.lexically_relative(root).generic_string();
    for (const Metric metric : metrics) {
      try {
        auto selected = collect_results(folder, metric, RecordEpoch::Selected);
        auto last = collect_results(folder, metric, RecordEpoch::Final);
        for (size_t i = 0; i < selected.size() && i < last.size(); ++i)
          board.folders.push_back({name, selected[i], last[i], resolved_settings(file, selected[i])});
      } catch (const std::exception& e) {
        throw Error("--board: " + folder.string() + ": " + error_text(e));
      }
    }
  }
  for (const auto& table : file.tables)
    if (is_board_table(table)) {
      board.tables.push_back(board_table(file, table, board.folders));
      board.tables.back().references = board_references(root, table, board.folders);
    }
  for (const auto& claim : file.claims) board.claims.push_back(board_claim(file, claim, board.folders));
  board.bad_records = judged_bad_records(board);
  for (const auto& line : board.bad_records) spdlog::warn("record not counted: {}", line);
  board.lease_notes = lease_notes(board);
  return board;
}

BoardCounts board_counts(const Board& board) {
  BoardCounts counts;
  for (const auto& table : board.tables)
    for (const auto& cell : table.cells) {
      ++counts.cells;
      counts.trained += cell.status != CellStatus::NotTrained;
      counts.within += cell.status == CellStatus::Within;
      counts.outside += cell.status == CellStatus::Outside;
      counts.uncounted += cell.uncounted.has_value();
    }
  for (const auto& claim : board.claims) {
    ++counts.claims;
    ++counts.verdicts[claim.verdict];
  }
  return counts;
}

}  // namespace repro
