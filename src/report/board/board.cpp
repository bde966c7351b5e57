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

// The sources of (row, column) in `folder`: each model configuration of that row with counted runs there, or with
// records none of which can be counted (n = 0: corrupt, inconsistent, links; named, never judged).
std::vector<CellSource> sources_in(const BoardFolder& folder, const std::string& row, const std::string& column) {
  std::vector<std::string> configs;
  for (const auto& run : folder.selected.runs)
    if (row_of(run) == row && run.dataset == column && (is_counted(run) || is_bad_record(run)))
      add_unique(configs, run.model_config);
  std::vector<CellSource> sources;
  for (const auto& config : configs) {
    CellSource s;
    s.folder = &folder, s.model_config = config;
    const Cell selected = make_cell(folder.selected, config, column);
    s.selected = summary_of(selected);
    s.last = summary_of(make_cell(folder.last, config, column));
    s.not_counted = status_text(selected, folder.selected.metric);
    std::vector<std::string> devices;
    for (const auto& run : folder.selected.runs) {
      if (run.model_config != config || run.dataset != column) continue;
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
                                     const std::vector<std::string>& readings, const std::string& row,
                                     const std::string& column) {
  std::vector<CellSource> all;
  for (const auto& folder : folders) {
    if (folder.selected.name != table.experiment || folder.selected.metric != table.metric) continue;
    if (std::find(readings.begin(), readings.end(), folder.selected.profile) == readings.end()) continue;
    for (auto& s : sources_in(folder, row, column)) all.push_back(s);
  }
  const auto holder = [&](const CellSource& s) {  // one cell, one folder: the rule report uses too
    const auto reading = std::find(readings.begin(), readings.end(), s.folder->selected.profile) - readings.begin();
    return CellHolder{s.folder->name, s.selected.n, s.model_config != row, static_cast<size_t>(reading)};
  };
  std::stable_sort(all.begin(), all.end(),
                   [&](const CellSource& a, const CellSource& b) { return held_before(holder(a), holder(b)); });
  std::stable_partition(all.begin(), all.end(), [](const CellSource& s) { return s.selected.n > 0; });
  return all;
}

std::vector<std::string> reading_names(const PaperTable& table) {
  std::vector<std::string> names;
  for (const auto& r : table.readings) names.push_back(r.profile);
  return names;
}

bool touches(const LedgerItem& item, const std::string& experiment, const std::string& reading,
             const std::string& column) {
  if (item.experiment != experiment) return false;
  if (!item.profile.empty() && item.profile != reading) return false;
  const bool named = std::find(item.datasets.begin(), item.datasets.end(), column) != item.datasets.end();
  // A differs item touches every cell unless it names its columns; any other item only the columns it names.
  return named || (item.status == LedgerStatus::Differs && item.datasets.empty());
}

BoardTable board_table(const PaperFile& file, const PaperTable& table, const std::vector<BoardFolder>& folders) {
  BoardTable out;
  out.paper = &table;
  const auto readings = reading_names(table);
  for (const auto& paper_cell : table.cells) {
    BoardCell cell;
    cell.paper = &paper_cell;
    auto sources = cell_sources(folders, table, readings, paper_cell.row, paper_cell.column);
    if (!sources.empty() && sources.front().selected.n == 0) {  // records, none counted
      cell.uncounted = sources.front();
      cell.also.assign(sources.begin() + 1, sources.end());
    } else if (!sources.empty()) {
      cell.source = sources.front();
      cell.reading = sources.front().folder->selected.profile;
      cell.also.assign(sources.begin() + 1, sources.end());
      const SampleSummary& s = cell.source->selected;
      cell.status =
          within_paper_band(s.mean, s.n < 2 ? NAN : s.std, paper_cell) ? CellStatus::Within : CellStatus::Outside;
    }
    const std::string reading = cell.source ? cell.reading : (readings.empty() ? "" : readings.front());
    for (size_t i = 0; i < file.ledger.size(); ++i)
      if (touches(file.ledger[i], table.experiment, reading, paper_cell.column)) cell.ledger.push_back(i);
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
  auto sources = sources_in(folder, row.row, column);
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
  const auto readings = reading_names(table);
  std::vector<BoardReference> out;
  for (const auto& reference : table.references)
    for (const auto& column : columns) {
      std::optional<BoardReference> best;
      for (const auto& folder : folders) {
        if (folder.selected.name != table.experiment || folder.selected.metric != table.metric) continue;
        if (std::find(readings.begin(), readings.end(), folder.selected.profile) == readings.end()) continue;
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

ReadingVerdict judge_reading(const Claim& claim, const PaperTable& table, const std::string& reading,
                             const std::vector<BoardFolder>& folders) {
  ReadingVerdict out;
  out.reading = reading;
  const auto sources_of = [&](const std::string& row, const std::string& dataset) {
    return cell_sources(folders, table, {reading}, row, dataset);
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
    out.readings.push_back(judge_reading(claim, *out.table, reading.profile, folders));
    if (out.verdict_reading.empty() && out.readings.back().selected.verdict != Verdict::NotTested) {
      out.verdict = out.readings.back().selected.verdict;
      out.verdict_reading = reading.profile;
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
    for (const auto& r : t.paper->readings)
      if (t.paper->experiment == folder.selected.name && r.profile == folder.selected.profile &&
          t.paper->metric == folder.selected.metric)
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
          board.folders.push_back({name, selected[i], last[i]});
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
