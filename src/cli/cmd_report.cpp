// repro report RUNS_DIR: tables of mean ± std over seeds from run records, the
// Welch statistics of each row against a baseline, a paper's numbers and claims
// beside ours (--compare), and figures (--plots).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <iostream>

#include "cli/cli.h"
#include "cli/common.h"
#include "cli/enum_option.h"
#include "record/epoch_row.h"
#include "report/board/board.h"
#include "report/claims/claims.h"
#include "report/claims/ledger.h"
#include "report/claims/paper.h"
#include "report/figures/figures.h"
#include "report/records/run_filter.h"
#include "report/tables/against.h"
#include "report/tables/eval_table.h"
#include "report/tables/run_table.h"
#include "report/tables/select.h"
#include "report/tables/table.h"
#include "spec/experiment.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace {

namespace fs = std::filesystem;

struct ReportCommand {
  std::string dir, output, compare, plot_format = "png";
  std::string eval;  // --eval NAME[,NAME...]: repro eval's tables instead of the training records' (eval_table.h)
  ReportOptions options;
  bool stats = false, no_stats = false, plots = false;
  std::string board, html;                    // --board PAPER_FILE, --html FILE
  std::vector<std::string> into;              // --into FILE: files whose board markers get the board
  std::string select, select_on = "mean";     // --select AXIS[,AXIS...], --select-on
  std::string by = "val_acc";                 // --by: the metric --select chooses on
  bool select_given = false;                  // --select was on the command line (an empty value is refused)
  SelectOptions selection;                    // from them
  RecordEpoch epoch = RecordEpoch::Selected;  // --epoch selected | final
  std::string against;                        // --against OTHER: the same runs elsewhere, seed by seed (against.h)
  std::vector<std::string> datasets, rows;    // --datasets, --rows: only these runs (run_filter.h)
  std::string seeds;                          // --seeds 0-4 | 0,2
  bool runs = false;                          // --runs: one row per run (run_table.h)
  RunFilter filter;                           // from --datasets, --rows, --seeds
};

// The records' results: collected once; with --select, each experiment's sweep axes collapsed (select.h).
struct Collected {
  std::vector<ExperimentResults> swept;   // as recorded: a row per sweep value
  std::vector<ExperimentResults> tables;  // what the tables, statistics and claims show
};

Collected collect(const ReportCommand& c) {
  Collected out{collect_results(c.dir, c.options.metric, c.epoch, c.filter), {}};
  if (c.select.empty()) {
    out.tables = out.swept;
    return out;
  }
  const auto by = collect_results(c.dir, c.selection.by, c.epoch, c.filter);
  for (const auto& results : out.swept) {
    const auto match = std::find_if(by.begin(), by.end(), [&](const ExperimentResults& b) {
      return b.name == results.name && b.profile == results.profile;
    });
    if (match == by.end()) throw Error("internal: " + results.name + " not collected with " + name_of(c.selection.by));
    out.tables.push_back(select_axes(results, *match, c.selection).results);
  }
  return out;
}

// --compare: ours beside the paper's cells, the paper's own table tested, the claims.
std::string compare_text(const ReportCommand& c, const std::vector<ExperimentResults>& tables) {
  const PaperFile file = read_paper_file(c.compare);
  const auto& paper = file.tables;
  // The claims at the final epoch beside the selected one (issue 46): the same folder read at each run's last
  // epoch. Not with --select (it chooses on the selected epoch) nor with --epoch final (that is the table already).
  std::vector<ExperimentResults> last;
  if (c.epoch == RecordEpoch::Selected && !c.select_given)
    last = collect_results(c.dir, c.options.metric, RecordEpoch::Final, c.filter);
  std::string text;
  for (const auto& results : tables) {
    const auto twin = std::find_if(last.begin(), last.end(), [&](const ExperimentResults& l) {
      return l.name == results.name && l.profile == results.profile;
    });
    text += "\n" + compare_with_paper(results, paper);
    for (const auto& table : paper)
      if (table.experiment == results.name && table.metric == c.options.metric) {
        const std::string note = paper_significance(table);
        if (!note.empty()) text += note + "\n";
      }
    const std::string verdicts = claims_report(results, paper, file.claims, twin == last.end() ? nullptr : &*twin);
    if (!verdicts.empty()) text += verdicts;
    text += ledger_report(results.name, results.profile, results.heading.empty() ? results.name : results.heading,
                          file.ledger, c.compare);
  }
  return text;
}

// --board: every results folder below c.dir judged against the paper file; Markdown, HTML, and the markers of
// each --into file.
void run_board(const ReportCommand& c) {
  const PaperFile file = read_paper_file(c.board);
  std::string command = "repro report " + c.dir + " --board " + c.board;
  for (const auto& into : c.into) command += " --into " + into;
  const Board board = build_board(file, c.dir, command);
  const fs::path markdown = c.output.empty() ? fs::path(c.dir) / "board.md" : fs::path(c.output);
  const fs::path html = c.html.empty() ? markdown.parent_path() / "board.html" : fs::path(c.html);
  const std::string text = board_markdown(board);
  // Every --into file checked, then every file written all or none (a target that cannot be written: none is).
  std::vector<std::pair<fs::path, std::string>> files = {{markdown, text}, {html, board_html(board)}};
  for (const auto& into : c.into) files.emplace_back(into, board_into_text(into, text, board_coverage(board)));
  write_files_atomic(files);
  spdlog::info("wrote {} and {}{}", markdown.string(), html.string(),
               c.into.empty() ? "" : " and the board's markers in " + join(c.into, ", "));
}

// --runs: one row per run, CSV (every column) or Markdown; alone but for the selectors, --format, -o and --metric.
void run_runs_table(const ReportCommand& c) {
  if (!c.board.empty() || c.plots || c.stats || c.no_stats || !c.compare.empty() || !c.against.empty() ||
      !c.eval.empty() || c.select_given || c.epoch != RecordEpoch::Selected)
    throw Error(
        "--runs: one row per run with every metric at the selected and the last epoch; not with --board, "
        "--plots, --stats, --compare, --against, --eval, --select or --epoch (give --format csv for every "
        "column)");
  const auto all = collect_results(c.dir, c.options.metric, RecordEpoch::Selected, c.filter);
  for (const auto& results : all)  // the runs of a cell another folder holds too: not in the table, named
    for (const auto& line : results.other_folders) spdlog::warn("a cell in several results folders: {}", line);
  const std::string text = c.options.format == ReportFormat::Csv ? runs_csv(all) : runs_markdown(all, c.options.metric);
  if (c.output.empty())
    std::cout << text;
  else
    write_file_atomic(c.output, text);
}

void run_report(ReportCommand c) {
  c.filter = {c.datasets, c.rows, c.seeds.empty() ? std::vector<int64_t>{} : parse_seeds(c.seeds, "--seeds")};
  if (c.runs) {
    run_runs_table(c);
    return;
  }
  if (!c.board.empty()) {
    if (c.plots || c.stats || !c.compare.empty() || !c.against.empty() || !c.eval.empty() || c.select_given ||
        !c.filter.empty())
      throw Error("--board " + c.board + ": alone (it reads every folder below " + c.dir +
                  " and judges the paper's tables and claims itself); not with --plots, --stats, --compare, "
                  "--against, --eval, --select, --datasets, --rows or --seeds");
    run_board(c);
    return;
  }
  if (!c.into.empty() || !c.html.empty()) throw Error("--into and --html: only with --board");
  if (c.stats && c.no_stats) throw Error("--stats and --no-stats: give one of them");
  c.options.stats = c.stats ? StatsChoice::On : c.no_stats ? StatsChoice::Off : StatsChoice::Auto;
  if (c.plots && c.options.format != ReportFormat::Markdown)
    throw Error("--plots writes report.md: use it with --format md");
  if (!c.eval.empty() && (!c.compare.empty() || c.stats))
    throw Error("--eval " + c.eval + ": not with " + (c.stats ? "--stats" : "--compare") +
                " (they judge the training records' metrics; run repro report without --eval for them)");
  if (c.select_given) {
    if (!c.eval.empty()) throw Error("--select: not with --eval (it selects among training records)");
    c.selection.axes = split(c.select, ',');
    const bool empty_axis = std::any_of(c.selection.axes.begin(), c.selection.axes.end(),
                                        [](const std::string& axis) { return trim(axis).empty(); });
    if (c.selection.axes.empty() || empty_axis)
      throw Error("--select '" + c.select +
                  "': an empty axis name; give the sweep axes to collapse, e.g. "
                  "--select train.lr (or lr)");
    c.selection.on = enum_from_name<SelectOn>(c.select_on, "--select-on");
    c.selection.by = select_metric(c.by);
  }
  const FigureOptions figures = figure_options(c.plot_format);
  const Collected collected = c.eval.empty() ? collect(c) : Collected{};
  std::string text = c.eval.empty() ? render_report(collected.tables, c.options)
                                    : render_eval_report(c.dir, split(c.eval, ','), c.options.metric, c.filter);
  if (!c.compare.empty()) text += compare_text(c, collected.tables);
  std::vector<NamedChart> overlays;  // --against --plots: each row beside its twins, epoch by epoch
  if (!c.against.empty()) {
    if (!c.eval.empty()) throw Error("--against " + c.against + ": not with --eval (it pairs training records)");
    if (c.options.format != ReportFormat::Markdown)  // never a markdown table inside CSV output
      throw Error("--against " + c.against + ": its pairs are a markdown table; use it with --format md");
    if (!fs::is_directory(c.against)) throw Error("--against " + c.against + ": no such folder of run records");
    const auto others = collect_results(c.against, c.options.metric, c.epoch, c.filter);
    text += against_report(collected.tables, others, c.dir, c.against, c.options.metric);
    for (const auto& mine : collected.tables)
      for (const auto& other : others)
        if (other.name == mine.name && other.profile == mine.profile)
          for (auto& chart : against_charts(mine, other, fs::path(c.dir).lexically_normal().filename().string(),
                                            fs::path(c.against).lexically_normal().filename().string()))
            overlays.push_back(chart);
  }
  if (c.plots) {
    // Figures go beside the report: -o's folder, or RUNS_DIR with report.md there.
    if (c.output.empty()) c.output = (std::filesystem::path(c.dir) / "report.md").string();
    const std::filesystem::path markdown_dir = std::filesystem::absolute(c.output).parent_path();
    const fs::path folder = markdown_dir / "figures";
    // A report written to another name than report.md names its figures after itself (never overwriting those).
    const std::string stem = fs::path(c.output).stem().string();
    const std::string prefix = stem == "report" ? "" : safe_name(stem) + "_";
    text +=
        "\n" + (c.eval.empty()
                    ? write_figures(collected.tables, collected.swept, folder, markdown_dir, figures, prefix, overlays)
                    : write_figures(collect_results(c.dir, c.options.metric, RecordEpoch::Selected, c.filter), {},
                                    folder, markdown_dir, figures, prefix));
    spdlog::info("wrote {} and its figures in {}", c.output, (markdown_dir / "figures").string());
  }
  if (c.output.empty())
    std::cout << text;
  else
    write_file_atomic(c.output, text);
}

}  // namespace

void add_report_command(CLI::App& app, int& exit_code) {
  auto* command = app.add_subcommand("report", "Aggregate run records into mean ± std tables");
  command->footer(verdicts_help());
  auto c = std::make_shared<ReportCommand>();
  command->add_option("RUNS_DIR", c->dir, "Folder of run records (an --out folder or one experiment in it)")
      ->required();
  hinted(command->add_option_function<std::string>(
             "--metric", [c](const std::string& name) { c->options.metric = enum_from_name<Metric>(name, "--metric"); },
             join(metric_names(), " | ")),
         CLI::IsMember(metric_names()));
  add_enum_option(*command, "--format", c->options.format);
  command->add_option("-o,--output", c->output, "Write the report to this file instead of stdout");
  command->add_option("--compare", c->compare,
                      "A paper's numbers and claims (e.g. experiments/paper/dgsa.yaml): ours | paper | Δ, the paper's "
                      "own differences tested, each claim judged (the verdicts: below)");
  command->add_flag("--stats", c->stats,
                    "Welch table under each table: each row − the baseline row, 95% CI, p (default: on when every "
                    "cell has n >= 2)");
  command->add_flag("--no-stats", c->no_stats, "No Welch table");
  command->add_option("--baseline", c->options.baseline,
                      "Row the Welch table compares with (default: the spec's report.baseline, else the first row)");
  command->add_flag("--plots", c->plots,
                    "Learning and robustness curves into figures/ beside the report, embedded in it (report.md in "
                    "RUNS_DIR unless -o)");
  hinted(command->add_option("--plot-format", c->plot_format, "png | svg | both"),
         CLI::IsMember({"png", "svg", "both"}));
  command->add_option(
      "--eval", c->eval,
      "Tabulate the evaluations of repro eval (<run>/eval/NAME.json) instead: NAME[,NAME...] side by "
      "side, one column per dataset and level (e.g. a robustness table); with --plots, the figures too");
  command->add_option("--against", c->against,
                      "Another folder of the same runs (e.g. trained on a GPU): each run beside its twin (same "
                      "experiment, profile, row, dataset, seed), Δ and whether it is within the seed noise");
  add_enum_option(*command, "--epoch", c->epoch,
                  "selected (default): each run's selected epoch (best validation accuracy, the earliest on a tie) | "
                  "final: its last epoch, to see which conclusions survive the other choice");
  command->add_option("--select", c->select,
                      "Collapse sweep axes AXIS[,AXIS...] (train.lr or lr) per model row: the value with the best "
                      "--by metric, the reported metric there, the chosen values listed under the table");
  command->add_option("--by", c->by,
                      "The metric --select chooses on: val_acc (default) | val_loss | train_acc | train_loss");
  command->add_option("--board", c->board,
                      "The claims board: judge this paper file's tables and claims on every results folder below "
                      "RUNS (their profiles that a table lists under readings:); writes board.md (or -o) and "
                      "board.html beside it");
  command->add_option("--html", c->html,
                      "With --board: the HTML page's path (default: board.html beside the markdown)");
  command->add_option("--into", c->into,
                      "With --board: a file whose '<!-- repro board: begin -->' … '<!-- repro board: end -->' "
                      "(the board) or '<!-- repro board: coverage -->' … '<!-- repro board: coverage end -->' (the "
                      "coverage paragraph) are replaced; repeat for several");
  command->add_option("--select-on", c->select_on,
                      "mean (default): one value per row, the best mean over seeds | seed: each seed's best value");
  add_selection_options(*command, c->datasets, c->rows);
  command->add_option("--seeds", c->seeds, "Only these seeds, e.g. 0-4 or 0,2 (default: all)");
  command->add_flag("--runs", c->runs,
                    "One row per run instead of the tables: its identity, sweep values, seed, state, device, GPU, "
                    "precision, every metric at the selected and the last epoch, wall time, commit, folder; "
                    "--format csv for pandas, R or a spreadsheet (docs/report.md)");
  command->callback([c, command, &exit_code] {
    c->select_given = command->count("--select") > 0;
    run_report(*c);
    exit_code = 0;
  });
}

}  // namespace repro
