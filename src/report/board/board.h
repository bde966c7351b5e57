#pragma once
// The claims board (`repro report RESULTS --board experiments/paper/dgsa.yaml`): every results folder below
// RESULTS read once, and the paper file's tables and claims judged on the runs of each table's readings of the
// paper's protocol (`readings:`: a profile's runs, or those of its runs with the settings it names). Each paper cell
// gets ours | paper | n | where (folder, reading, device), the source with the most runs when several folders hold
// it (a folder's plain row before a swept one), the others listed; each claim gets one verdict per reading at the selected and at the final epoch;
// the ledger's *differs* items are marked beside the cells they touch. Written as Markdown (board_markdown) and as
// one self-contained HTML page with SVG figures (board_html), both from the same blocks (report/board/board_page.h), so
// the page says everything the Markdown says. docs/report.md describes it.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/claims/claims.h"
#include "report/claims/paper_file.h"
#include "report/records/collect.h"
#include "spec/config.h"

namespace repro {

// One results folder: the runs of one experiment and profile found below the board's root.
struct BoardFolder {
  std::string name;                  // relative to the root, '/'-separated ("table2/gpu")
  ExperimentResults selected, last;  // the same runs at the selected and at the final epoch
  // Each run folder's settings as its spec.resolved.yaml resolved them (keys absent from an older file at what it
  // ran as), for the readings that name settings; a run whose file cannot be read is in none of those.
  std::map<std::string, Config> resolved;
};

// Where a cell's runs come from: a folder and the model configuration in it (the paper's row, or a swept one).
struct CellSource {
  const BoardFolder* folder = nullptr;
  std::string reading;  // the reading whose runs these are (PaperReading::name)
  std::string model_config;
  bool swept = false;  // a swept configuration of the paper's row (sweep values beyond the reading's settings)
  SampleSummary selected, last;  // mean, sample std, n of the counted runs at each epoch
  std::string not_counted;       // the cell's runs there that are not counted, as tables say it: "1 corrupt" ("")
  std::string devices;           // "NVIDIA H200 + NVIDIA H100", "CPU"
  std::vector<std::string> bad_records;  // the run folders of its records that cannot be counted (corrupt, …)
};

// "table2/gpu (NVIDIA H200 + NVIDIA H100)", with the configuration when it is not the paper's `row`.
std::string cell_source_text(const CellSource& source, const std::string& row);
// A source none of whose records is counted (n = 0), named with them: "Transformer on newsgroups in table2/gpu:
// 2 corrupt, none counted (PATH, PATH)".
std::string uncounted_text(const CellSource& source, const std::string& dataset);

enum class CellStatus { NotTrained, Within, Outside };

struct BoardCell {
  const PaperCell* paper = nullptr;
  std::string reading;                  // the reading of the chosen source ("" when not trained)
  std::optional<CellSource> source;     // the chosen source; nullopt when no reading trained it
  std::optional<CellSource> uncounted;  // without a source: one whose records are all not counted (n = 0: corrupt…)
  std::vector<CellSource> also;         // the cell's other sources under the table's readings
  std::vector<size_t> ledger;           // indexes into PaperFile::ledger of the differs items touching it
  CellStatus status = CellStatus::NotTrained;
};

// A reference row of a table (the paper file's `references:`, e.g. the bag-of-words floor) on one column: our runs
// of it under the table's readings, shown beside the paper's cells and never compared with them. A row trained at
// several values of a swept setting (the bag of words' weight decay) is shown at the one with the best mean
// validation accuracy over its seeds (report --select's default rule: on a tie, the first in the sweep's order),
// never chosen on the test set.
struct BoardReference {
  const ReferenceRow* reference = nullptr;
  std::string column;
  CellSource source;              // its folder, devices and configuration, the test metric at both epochs
  std::string chosen;             // the chosen configuration's sweep values ("weight_decay=0.01"; "" when not swept)
  int candidates = 1;             // the configurations it was chosen among
  std::vector<std::string> tied;  // the sweep values of the others with the chosen one's mean validation accuracy
};

struct BoardTable {
  const PaperTable* paper = nullptr;
  std::vector<BoardCell> cells;            // in the paper file's order
  std::vector<BoardReference> references;  // per reference row and column with runs
};

// One claim under one reading: its verdict at the selected and at the final epoch, and where each comparison's
// runs come from.
struct ReadingVerdict {
  std::string reading;
  ClaimVerdict selected, last;
  std::vector<std::string> sources;    // per comparison: "table2/gpu (NVIDIA H200 + NVIDIA H100)", "" = no runs
  std::vector<std::string> uncounted;  // per comparison: a side whose records are none counted (uncounted_text), ""
};

struct BoardClaim {
  const Claim* claim = nullptr;
  const PaperTable* table = nullptr;
  Verdict verdict = Verdict::NotTested;  // the headline: the first reading with runs, at the selected epoch
  std::string verdict_reading;           // that reading ("" = none has runs)
  ClaimVerdict paper;                    // the paper's own numbers (mean, std, n as printed)
  std::vector<ReadingVerdict> readings;  // every reading of the claim's table, in the file's order
};

// What a folder's side files (not its records) say about the GPUs of records that name none (written before
// 0.7.0): a lease's env.txt, "commit: SHA" and the GPU line nvidia-smi printed, matched to the records by commit.
struct LeaseNote {
  std::string folder;     // the results folder ("table2/gpu")
  std::string file;       // the side file, relative to the board's root ("table2/gpu/lease-2-h100/env.txt")
  std::string commit;     // the records' git commit it matches (short)
  std::string gpu;        // "NVIDIA H100 80GB HBM3"
  int runs = 0;           // the counted records it covers
  std::string versions;   // the repro versions those records were written by ("0.6.0")
  std::string precision;  // their train.precision as the record's spec says it ("auto")
};

struct Board {
  const PaperFile* file = nullptr;
  std::filesystem::path root;
  std::string command;               // the command line that wrote it, as the board prints it
  std::vector<BoardFolder> folders;  // every results folder below the root, by name
  std::vector<BoardTable> tables;
  std::vector<BoardClaim> claims;
  std::vector<std::string> bad_records;  // judged folders' records not counted: "corrupt: PATH: why", one each
  std::vector<LeaseNote> lease_notes;    // the judged records that name no GPU, and what their side files say
};

// The device of a record as the board names it: "cpu, LibTorch 1.13.0" -> "CPU"; "cuda:0 (NVIDIA H100 80GB HBM3, …),
// LibTorch 2.11.0" -> "NVIDIA H100 80GB HBM3"; a record from before 0.7.0, which names no GPU: "cuda:0, …" -> "GPU".
std::string short_device(const std::string& device);
// The counted records of the board's judged folders that name no GPU, grouped by folder and commit, with what the
// side files below its root say of them (board/lease_notes.cpp).
std::vector<LeaseNote> lease_notes(const Board& board);

// Reads every results folder below `root` (a folder holds <dataset>/<model>/seed_<n>/summary.json) and judges
// `file`'s tables and claims on them; warns on stderr of each record of a judged folder it cannot count (corrupt,
// of a newer repro, inconsistent, a link), as `report` does. Throws repro::Error naming the folder when one cannot
// be read.
Board build_board(const PaperFile& file, const std::filesystem::path& root, const std::string& command);

// Whether a table of the board lists the folder's experiment, profile and metric as a reading of the paper's
// protocol (its runs are judged; other folders are only listed).
bool is_judged_folder(const Board& board, const BoardFolder& folder);

// Whether the board shows a table: one of a per-epoch metric (accuracies; the parameter counts of Tables 5 and 6
// are `repro params --compare`'s).
bool is_board_table(const PaperTable& table);

// How many cells there are, trained, within the paper's band; and the claims' headline verdicts.
struct BoardCounts {
  int cells = 0, trained = 0, within = 0, outside = 0;
  int uncounted = 0;  // of the cells not trained: those with records, none counted (corrupt, …)
  int claims = 0;
  std::map<Verdict, int> verdicts;
};
BoardCounts board_counts(const Board& board);

// One paragraph saying how many of the paper's cells and claims are reproduced (the README's opening lines).
std::string board_coverage(const Board& board);
// The whole board as Markdown (results/README.md opens with it).
std::string board_markdown(const Board& board);
// The whole board as one self-contained HTML page: tables and SVG figures as data: images, no network.
std::string board_html(const Board& board);

// The text of `file` with the board between `<!-- repro board: begin -->` and `<!-- repro board: end -->` and the
// coverage paragraph between `<!-- repro board: coverage -->` and `<!-- repro board: coverage end -->` replaced;
// writes nothing (the caller writes every file once all are checked). A marker is a line holding only it,
// outside fenced code blocks; each pair present must be exactly one begin and, after it, one end, and the two
// pairs may not overlap. Throws repro::Error naming the file and the markers' lines otherwise, when it has neither
// pair, when there is no such file, or when it is not a regular file of at most 4 MiB.
std::string board_into_text(const std::filesystem::path& file, const std::string& board_text,
                            const std::string& coverage_text);

}  // namespace repro
