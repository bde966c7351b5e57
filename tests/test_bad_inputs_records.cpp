// Bad inputs to the record side, one table row each: corrupt or disagreeing run
// records (marked in the report, never aborting it), duplicated records, paper
// files, bench counts, write failures and unreadable checkpoints. Every row runs
// the repro binary as a user does and checks the exit code and the message's
// key words, and that no LibTorch stack trace reaches the output.
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>

#include "catch.h"
#include "fixtures.h"
#include "util/files.h"
#include "util/strings.h"

using namespace repro;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Two complete seeds of model "vit" on fashion_mnist in experiment "t": test_acc 80 and 81.
void write_good_records(const fs::path& runs) {
  json plan = {{"experiment", "t"}, {"profile", ""}, {"runs", json::array()}};
  for (int seed : {0, 1}) {
    const fs::path dir = runs / "t/fashion_mnist/vit" / ("seed_" + std::to_string(seed));
    plan["runs"].push_back({{"dir", "fashion_mnist/vit/seed_" + std::to_string(seed)},
                            {"model_config", "vit"},
                            {"row_index", 0},
                            {"dataset", "fashion_mnist"},
                            {"seed", seed}});
    const json selected = {{"epoch", 2},         {"train_loss", 0.5}, {"train_acc", 80.0},      {"val_loss", nullptr},
                           {"val_acc", nullptr}, {"test_loss", 0.6},  {"test_acc", 80.0 + seed}};
    const json summary = {{"status", "complete"},
                          {"message", ""},
                          {"experiment", "t"},
                          {"profile", ""},
                          {"model_config", "vit"},
                          {"row_index", 0},
                          {"dataset", "fashion_mnist"},
                          {"seed", seed},
                          {"epochs_planned", 2},
                          {"epochs_run", 2},
                          {"selected", selected},
                          {"final", selected},
                          {"data", {{"partial", false}, {"notes", json::array()}}}};
    write_file_atomic(dir / "spec.resolved.yaml", "# the run's settings (status counts no record without them)\n");
    write_file_atomic(dir / "summary.json", summary.dump(2) + "\n");
    write_file_atomic(dir / "metrics.csv",
                      "epoch,step,lr,train_loss,train_acc,val_loss,val_acc,test_loss,test_acc,seconds\n"
                      "1,4,0.001,0.9,60,,,0.8,70,1.5\n"
                      "2,8,0.001,0.5,80,,,0.6," +
                          std::to_string(80 + seed) + ",1.5\n");
  }
  write_file_atomic(runs / "t/plan.json", plan.dump(2) + "\n");
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

struct RecordResult {
  int exit_code;
  std::string output;  // stdout and stderr
};

// A /bin/sh command line with stderr joined to stdout.
RecordResult run_shell(const std::string& command) {
  std::string output;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return {-1, "popen failed: " + command};
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), output};
}

fs::path seed0(const fs::path& root) { return root / "runs/t/fashion_mnist/vit/seed_0"; }

void edit_json(const fs::path& path, const std::function<void(json&)>& edit) {
  json value = json::parse(read_file(path));
  edit(value);
  write_file_atomic(path, value.dump(2) + "\n");
}

void replace_in(const fs::path& path, const std::string& from, const std::string& to) {
  std::string text = read_file(path);
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  write_file_atomic(path, text.replace(at, from.size(), to));
}

// A paper file whose table 1 has `cells` (YAML lines, each "      - {...}") under the header.
std::function<void(const fs::path&)> paper(const std::string& cells, const std::string& header = "") {
  return [=](const fs::path& root) {
    write_file_atomic(
        root / "paper.yaml",
        "tables:\n  - table: 1\n" +
            (header.empty() ? std::string("    experiment: t\n    metric: test_acc\n    n: 5\n") : header) +
            "    cells:\n" + cells);
  };
}

struct RecordRow {
  std::string name;
  std::function<void(const fs::path& root)> setup;  // changes the good records under root
  std::string command;                              // "{root}" stands for the row's folder
  int exit_code;
  std::vector<std::string> words;        // all in the output
  std::vector<std::string> absent = {};  // none in the output
};

const std::string kReport = "report {root}/runs";
// A command that must end by itself: before issue 49 a FIFO named summary.json hung report, status and collect.
std::string bounded(const std::string& command) {
  return "ulimit -c 0; exec timeout 60 " + std::string(REPRO_BINARY) + " " + command;
}
const std::string kCollect = "collect {root}/runs {root}/results";
const std::string kCompare = "report {root}/runs --compare {root}/paper.yaml";
const std::string kBench = "bench " + std::string(REPRO_SOURCE_DIR) + "/experiments/smoke.yaml --device cpu";
const std::string kRun = "run " + std::string(REPRO_SOURCE_DIR) +
                         "/experiments/smoke.yaml data.train_limit=0 data.test_limit=0 data.verify=off --device cpu "
                         "--data-root {root}/data --out {root}/out";

void no_setup(const fs::path&) {}

void with_data(const fs::path& root) { test::write_fashion_fixture(root / "data", 96, 32); }

const std::string kGoodCell = "      - {row: vit, column: fashion_mnist, mean: 80.5, std: 0.5}\n";

std::vector<RecordRow> record_bad_inputs() {
  const auto summary = [](const fs::path& root) { return seed0(root) / "summary.json"; };
  const auto metrics = [](const fs::path& root) { return seed0(root) / "metrics.csv"; };
  return {
      {"good records", no_setup, kReport, 0, {"| vit | 80.50 ± 0.71 |", "n = 2 seeds"}},
      // summary.json
      {"truncated summary.json",
       [=](const fs::path& r) { write_file_atomic(summary(r), read_file(summary(r)).substr(0, 40)); },
       kReport,
       0,
       {"81.00 ± n/a (1 corrupt)", "seed_0/summary.json: not valid JSON"}},
      {"empty summary.json",
       [=](const fs::path& r) { write_file_atomic(summary(r), ""); },
       kReport,
       0,
       {"1 corrupt", "summary.json: not valid JSON"}},
      {"summary.json is a list",
       [=](const fs::path& r) { write_file_atomic(summary(r), "[1, 2]\n"); },
       kReport,
       0,
       {"1 corrupt", "is array, expected a JSON object"}},
      {"summary.json without status",
       [=](const fs::path& r) { edit_json(summary(r), [](json& s) { s.erase("status"); }); },
       kReport,
       0,
       {"1 corrupt", "lacks 'status'"}},
      {"unknown status",
       [=](const fs::path& r) { edit_json(summary(r), [](json& s) { s["status"] = "weird"; }); },
       kReport,
       0,
       {"1 corrupt", "status 'weird', expected complete, diverged or failed"}},
      {"seed that is text",
       [=](const fs::path& r) { edit_json(summary(r), [](json& s) { s["seed"] = "zero"; }); },
       kReport,
       0,
       {"1 corrupt", "'seed' is \"zero\", expected a whole number"}},
      {"selected without the metric",
       [=](const fs::path& r) { edit_json(summary(r), [](json& s) { s["selected"].erase("test_acc"); }); },
       kReport,
       0,
       {"1 corrupt", "lacks 'test_acc'"}},
      {"selected metric that is text",
       [=](const fs::path& r) { edit_json(summary(r), [](json& s) { s["selected"]["test_acc"] = "abc"; }); },
       kReport,
       0,
       {"1 corrupt", "'selected.test_acc' is \"abc\", expected a number"}},
      {"accuracy above 100",
       [=](const fs::path& r) { edit_json(summary(r), [](json& s) { s["selected"]["test_acc"] = 250; }); },
       kReport,
       0,
       {"1 corrupt", "'selected.test_acc' is 250, outside 0-100"}},
      {"selected epoch beyond the history",
       [=](const fs::path& r) { edit_json(summary(r), [](json& s) { s["selected"]["epoch"] = 7; }); },
       kReport,
       0,
       {"1 corrupt", "selected epoch 7 is not among the 2 epochs"}},
      {"summary.json of another cell than the plan's",
       [=](const fs::path& r) { edit_json(summary(r), [](json& s) { s["dataset"] = "cifar10"; }); },
       kReport,
       0,
       {"1 inconsistent", "holds vit on cifar10, seed 0; plan.json expects vit on fashion_mnist, seed 0"}},
      // the same record twice
      {"two folders holding seed 1 of one cell",
       [=](const fs::path& r) { edit_json(summary(r), [](json& s) { s["seed"] = 1; }); },
       kReport,
       2,
       {"two run records claim experiment 't', model 'vit', dataset 'fashion_mnist', seed 1", "seed_0", "seed_1"}},
      {"a copy of a run folder beside the plan's",
       [=](const fs::path& r) {
         fs::create_directories(r / "runs/t/backup");
         fs::copy(seed0(r), r / "runs/t/backup/seed_0", fs::copy_options::recursive);
       },
       kReport,
       2,
       {"two run records claim", "backup/seed_0", "vit/seed_0"}},
      // Issue 34, point 3: seed_1 a link to seed_0 showed n = 1 unflagged, and status said "2 complete".
      {"a seed folder that is a link to another seed's (report)",
       [=](const fs::path& r) {
         const fs::path seed1 = seed0(r).parent_path() / "seed_1";
         fs::remove_all(seed1);
         fs::create_symlink(seed0(r), seed1);
       },
       kReport,
       0,
       {"(1 link)", "link: ", "seed_1 is a symbolic link to", "not counted"}},
      {"a seed folder that is a link to another seed's (status)",
       [=](const fs::path& r) {
         const fs::path seed1 = seed0(r).parent_path() / "seed_1";
         fs::remove_all(seed1);
         fs::create_symlink(seed0(r), seed1);
       },
       "status {root}/runs --all",
       0,
       {"1 complete", "1 symbolic link(s), not counted", "link", "seed_1 is a symbolic link to"}},
      // Issue 49: not a regular file, beyond int64, status and report agreeing.
      {"summary.json that is a FIFO (report)",
       [=](const fs::path& r) {
         fs::remove(summary(r));
         REQUIRE(::mkfifo(summary(r).c_str(), 0644) == 0);
       },
       bounded(kReport),
       0,
       {"81.00 ± n/a (1 corrupt)", "seed_0/summary.json: is a FIFO (named pipe), expected a JSON record"}},
      {"summary.json that is a FIFO (status)",
       [=](const fs::path& r) {
         fs::remove(summary(r));
         REQUIRE(::mkfifo(summary(r).c_str(), 0644) == 0);
       },
       bounded("status {root}/runs"),
       0,
       {"1 complete", "1 corrupt, not counted", "corrupt", "seed_0/summary.json: is a FIFO (named pipe)"}},
      {"summary.json that is a FIFO (collect)",
       [=](const fs::path& r) {
         fs::remove(summary(r));
         REQUIRE(::mkfifo(summary(r).c_str(), 0644) == 0);
       },
       bounded(kCollect),
       1,
       {"seed_0/summary.json: is a FIFO (named pipe)", "nothing of this experiment was copied"}},
      {"metrics.csv that is a FIFO (report)",
       [=](const fs::path& r) {
         fs::remove(metrics(r));
         REQUIRE(::mkfifo(metrics(r).c_str(), 0644) == 0);
       },
       bounded(kReport),
       0,
       {"1 corrupt", "seed_0/metrics.csv: is a FIFO (named pipe), expected a metrics.csv"}},
      {"summary.json that is a folder",
       [=](const fs::path& r) {
         fs::remove(summary(r));
         fs::create_directory(summary(r));
       },
       kReport,
       0,
       {"1 corrupt", "seed_0/summary.json: is a folder, expected a JSON record"},
       {"not valid JSON"}},
      {"record_version 2^64 - 1",
       [=](const fs::path& r) { replace_in(summary(r), "{", "{\"record_version\": 18446744073709551615,"); },
       kReport,
       0,
       {"1 corrupt", "record_version 18446744073709551615 is newer than this repro reads"},
       {"negative"}},
      {"a seed of 2^64 - 1",
       [=](const fs::path& r) { edit_json(summary(r), [](json& s) { s["seed"] = 18446744073709551615ull; }); },
       kReport,
       0,
       {"1 corrupt", "'seed' is 18446744073709551615, beyond the largest whole number"}},
      {"a newer record: status says corrupt, as report does",
       [=](const fs::path& r) { edit_json(summary(r), [](json& s) { s["record_version"] = 2; }); },
       "status {root}/runs --all",
       0,
       {"1 complete", "1 corrupt, not counted", "record_version 2 is newer than this repro reads"},
       {"failed  "}},
      {"a garbage record: status says corrupt, as report does",
       [=](const fs::path& r) { write_file_atomic(summary(r), "garbage"); },
       "status {root}/runs",
       0,
       {"1 corrupt, not counted", "0 failed", "summary.json: not valid JSON"}},
      // metrics.csv
      {"metrics.csv missing",
       [=](const fs::path& r) { fs::remove(metrics(r)); },
       kReport,
       0,
       {"1 corrupt", "metrics.csv: is missing (summary.json says 2 epochs ran)"}},
      {"metrics.csv cut mid-line",
       [=](const fs::path& r) {
         const std::string text = read_file(metrics(r));
         write_file_atomic(metrics(r), text.substr(0, text.size() - 6));
       },
       kReport,
       0,
       {"1 corrupt", "metrics.csv:3: truncated line"}},
      {"empty metrics.csv",
       [=](const fs::path& r) { write_file_atomic(metrics(r), ""); },
       kReport,
       0,
       {"1 corrupt", "metrics.csv: empty"}},
      {"metrics.csv without a column",
       [=](const fs::path& r) { replace_in(metrics(r), "test_loss,test_acc", "test_loss"); },
       kReport,
       0,
       {"1 corrupt", "metrics.csv:1: header"}},
      {"garbage number in metrics.csv",
       [=](const fs::path& r) { replace_in(metrics(r), "0.6,80,", "0.6,abc,"); },
       kReport,
       0,
       {"1 corrupt", "metrics.csv:3: column 'test_acc' holds 'abc', not a number"}},
      {"metrics.csv row with a field missing",
       [=](const fs::path& r) { replace_in(metrics(r), "0.6,80,", "0.6,"); },
       kReport,
       0,
       {"1 corrupt", "metrics.csv:3: 9 fields, expected 10"}},
      {"metrics.csv with an extra epoch",
       [=](const fs::path& r) { append_file(metrics(r), "3,12,0.001,0.4,85,,,0.5,82,1.5\n"); },
       kReport,
       0,
       {"1 inconsistent", "metrics.csv has 3 epochs", "summary.json says 2"}},
      {"metrics.csv epochs out of order",
       [=](const fs::path& r) { replace_in(metrics(r), "\n1,4,", "\n2,4,"); },
       kReport,
       0,
       {"1 corrupt", "metrics.csv:2: epoch 2, expected 1"}},
      {"metrics.csv that disagrees with summary.json",
       [=](const fs::path& r) { replace_in(metrics(r), "0.6,80,", "0.6,50,"); },
       kReport,
       0,
       {"1 inconsistent", "metrics.csv epoch 2 has test_acc 50.0", "summary.json says 80.0"}},
      {"corrupt plan.json",
       [](const fs::path& r) { write_file_atomic(r / "runs/t/plan.json", "{\"runs\": ["); },
       kReport,
       0,
       {"unreadable plan", "| vit | 80.50 ± 0.71 |"}},
      {"corrupt record in the CSV format",
       [=](const fs::path& r) { write_file_atomic(summary(r), "{"); },
       kReport + " --format csv",
       0,
       {"t,vit,fashion_mnist,test_acc,1,81.000000,,1,1 corrupt,false", "corrupt record not counted"}},
      // paper files
      {"paper cell with a negative std",
       paper("      - {row: vit, column: fashion_mnist, mean: 90, std: -3}\n"),
       kCompare,
       2,
       {"paper.yaml:7:", "std -3 is negative"}},
      {"paper cell given twice",
       paper(kGoodCell + kGoodCell),
       kCompare,
       2,
       {"paper.yaml:8:", "cell (vit, fashion_mnist) of table 1 repeats line 7"}},
      {"paper cell of an unknown dataset",
       paper("      - {row: vit, column: mnist_x, mean: 90, std: 1}\n"),
       kCompare,
       2,
       {"paper.yaml:7:", "unknown dataset 'mnist_x'"}},
      {"paper mean that is not a number",
       paper("      - {row: vit, column: fashion_mnist, mean: high}\n"),
       kCompare,
       2,
       {"paper.yaml:7:", "mean 'high' is not a number"}},
      {"paper cell without a mean",
       paper("      - {row: vit, column: fashion_mnist, std: 1}\n"),
       kCompare,
       2,
       {"paper.yaml:7:", "a cell needs 'mean'"}},
      {"paper accuracy above 100",
       paper("      - {row: vit, column: fashion_mnist, mean: 120}\n"),
       kCompare,
       2,
       {"paper.yaml:7:", "mean 120 is outside 0-100"}},
      {"paper file with a YAML syntax error",
       paper("      - {row: vit, column: [fashion_mnist, mean: 1}\n"),
       kCompare,
       2,
       {"paper.yaml:7:"}},
      {"paper table of an unknown metric",
       paper(kGoodCell, "    experiment: t\n    metric: accuracy\n"),
       kCompare,
       2,
       {"paper.yaml:4:", "unknown metric 'accuracy'"}},
      {"paper table without an experiment",
       paper(kGoodCell, "    metric: test_acc\n"),
       kCompare,
       2,
       {"paper.yaml:2:", "a table needs 'experiment'"}},
      {"paper file without tables",
       [](const fs::path& r) { write_file_atomic(r / "paper.yaml", "cells: []\n"); },
       kCompare,
       2,
       {"paper.yaml:1:", "unknown key 'cells' in a paper file; expected one of paper, tables, claims, ledger"}},
      {"paper file that does not exist", no_setup, kCompare, 2, {"cannot read", "paper.yaml"}},
      {"a good paper file", paper(kGoodCell), kCompare, 0, {"| vit | fashion_mnist | 80.50 ± 0.71, 2 | 80.50 ± 0.50"}},
      // bench counts
      {"bench --steps 0", no_setup, kBench + " --steps 0", 2, {"--steps: got 0: must be ≥ 1"}},
      {"bench --eval-batches 0", no_setup, kBench + " --eval-batches 0", 2, {"--eval-batches: got 0: must be ≥ 1"}},
      {"bench --warmup -1", no_setup, kBench + " --warmup -1", 2, {"--warmup: got -1: must be ≥ 0"}},
      {"bench --steps that is not a number",
       no_setup,
       kBench + " --steps many",
       2,
       {"--steps: got 'many', expected a whole number ≥ 1"}},
      {"bench --epoch-examples -5",
       no_setup,
       kBench + " --epoch-examples -5",
       2,
       {"--epoch-examples: got -5: must be ≥ 0"}},
      // --start-at: a UNIX time ≥ 0 at most a day ahead (it printed a 309-digit range, or started at once; issue 64)
      {"bench --start-at x", no_setup, kBench + " --start-at x", 2, {"--start-at: got 'x', expected a UNIX time ≥ 0"}},
      {"bench --start-at -1",
       no_setup,
       kBench + " --start-at -1",
       2,
       {"--start-at: got '-1', expected a UNIX time ≥ 0"}},
      {"bench --start-at 1e30",
       no_setup,
       kBench + " --start-at 1e30",
       2,
       {"--start-at: got 1e30:", "hours from now", "at most a day ahead"}},
      // write failures
      {"report -o below a regular file",
       [](const fs::path& r) { write_file_atomic(r / "plain", "x"); },
       kReport + " -o {root}/plain/table.md",
       2,
       {"cannot write", "plain/table.md", "Not a directory"}},
      {"report -o naming a folder: the rename's own reason, not the cleanup's ('Success')",
       [](const fs::path& r) { fs::create_directories(r / "folder"); },
       kReport + " -o {root}/folder",
       2,
       {"cannot write", "/folder: renaming", "Is a directory"}},
      {"report -o on a full disk (file-size limit)",
       no_setup,
       "ulimit -f 0; exec " + std::string(REPRO_BINARY) + " " + kReport + " -o {root}/table.md",
       2,
       {"repro: error: cannot write", "table.md: File too large"}},
      {"run --out below a regular file",
       [](const fs::path& r) {
         with_data(r);
         write_file_atomic(r / "out", "x");
       },
       kRun + " train.epochs=1",
       2,
       {"cannot write", "/out/smoke/plan.json", "Not a directory"}},
      {"checkpoint on a full disk (file-size limit)",
       with_data,
       "ulimit -f 40; exec " + std::string(REPRO_BINARY) + " " + kRun + " train.epochs=1",
       2,
       {"repro: error: cannot write", "checkpoint.pt: File too large"}},
      // Issue 49, point 3: a finished record of a newer repro was retrained over, exit 0.
      {"run over a summary.json of a newer repro",
       [](const fs::path& r) {
         with_data(r);
         REQUIRE(
             run_shell(std::string(REPRO_BINARY) + " " + replace_all(kRun + " train.epochs=1", "{root}", r.string()))
                 .exit_code == 0);
         edit_json(r / "out/smoke/fashion_mnist/vit/seed_0/summary.json", [](json& s) { s["record_version"] = 2; });
       },
       kRun + " train.epochs=1",
       2,
       {"seed_0/summary.json: record_version 2 is newer than this repro reads", "Nothing was overwritten", "mv "}},
      // checkpoints
      {"checkpoint that is not a checkpoint",
       [](const fs::path& r) {
         with_data(r);
         write_file_atomic(r / "out/smoke/fashion_mnist/vit/seed_0/checkpoint.pt", "not a zip archive");
       },
       kRun + " train.epochs=1",
       1,  // that run is recorded as failed; the others go on
       {"checkpoint.pt: unreadable checkpoint", "delete it to restart this run from epoch 1", "1 failed"}},
      {"truncated checkpoint",
       [](const fs::path& r) {
         with_data(r);
         const std::string stop = kRun + " train.epochs=2 --stop-after-epoch 1";
         REQUIRE(run_shell(REPRO_FAULTS_BINARY + (" " + replace_all(stop, "{root}", r.string()))).exit_code == 3);
         const fs::path checkpoint = r / "out/smoke/fashion_mnist/vit/seed_0/checkpoint.pt";
         write_file_atomic(checkpoint, read_file(checkpoint).substr(0, 3000));
       },
       kRun + " train.epochs=2",
       1,
       {"checkpoint.pt: unreadable checkpoint", "delete it to restart", "1 failed"}},
  };
}

}  // namespace

TEST_CASE(
    "bad record inputs (records; paper files; bench counts; write failures; checkpoints) give one line and no trace",
    "[report]") {
  test::TempDir dir("bad-records");
  const auto table = record_bad_inputs();
  CHECK(table.size() >= 30);
  int index = 0;
  for (const auto& row : table) {
    const fs::path root = dir.path() / ("row" + std::to_string(index++));
    write_good_records(root / "runs");
    row.setup(root);
    std::string command = replace_all(row.command, "{root}", root.string());
    if (command.rfind("ulimit", 0) != 0) command = std::string(REPRO_BINARY) + " " + command;
    const auto result = run_shell(command);
    INFO(row.name << "\n$ " << command << "\n" << result.output);
    CHECK(result.exit_code == row.exit_code);
    for (const auto& word : row.words) CHECK_THAT(result.output, repro::test::Contains(word));
    for (const auto& word : row.absent) CHECK_THAT(result.output, !repro::test::Contains(word));
    for (const char* trace : {"Exception raised from", "frame #", "terminate called", "unexpected pos"})
      CHECK_THAT(result.output, !repro::test::Contains(trace));
  }
}

TEST_CASE("two profiles of one experiment are two tables; the same seed in each is no duplicate", "[report]") {
  test::TempDir dir("records-profiles");
  for (const std::string profile : {"short", "smoke"}) {
    const fs::path folder = dir.path() / "runs" / profile;
    write_good_records(folder);
    fs::rename(folder / "t", folder / "t_runs");
    edit_json(folder / "t_runs/plan.json", [&](json& plan) { plan["profile"] = profile; });
    for (const char* seed : {"seed_0", "seed_1"})
      edit_json(folder / "t_runs/fashion_mnist/vit" / seed / "summary.json", [&](json& s) { s["profile"] = profile; });
  }
  const auto result = run_shell(std::string(REPRO_BINARY) + " report " + (dir.path() / "runs").string());
  INFO(result.output);
  CHECK(result.exit_code == 0);
  CHECK_THAT(result.output, repro::test::Contains("### t (profile short): test_acc (%)") &&
                                repro::test::Contains("### t (profile smoke): test_acc (%)"));
  CHECK_THAT(result.output, !repro::test::Contains("two run records"));
}

// Issue 59: a record that cannot be read, in <experiment>/<profile>/ without plan.json and without its own
// spec.resolved.yaml, belongs to the experiment and profile the runs beside it name: not to an experiment named
// after the profile folder.
TEST_CASE("a damaged record under <experiment>/<profile>/ without plan.json is shown in its experiment's table",
          "[report]") {
  test::TempDir dir("records-profile-no-plan");
  write_good_records(dir.path() / "written");
  const fs::path runs = dir.path() / "runs", folder = runs / "t" / "short";  // <experiment>/<profile>
  fs::create_directories(runs / "t");
  fs::rename(dir.path() / "written" / "t", folder);
  fs::remove(folder / "plan.json");
  for (const char* seed : {"seed_0", "seed_1"})
    edit_json(folder / "fashion_mnist/vit" / seed / "summary.json", [&](json& s) { s["profile"] = "short"; });
  write_file_atomic(folder / "fashion_mnist/vit/seed_1/summary.json", "{\"status\": ");  // damaged
  const auto result = run_shell(std::string(REPRO_BINARY) + " report " + runs.string() + " --runs --format csv");
  INFO(result.output);
  CHECK(result.exit_code == 0);
  const auto lines = split_lines(result.output);
  std::vector<std::string> damaged;
  for (const auto& line : lines)
    if (line.find("seed_1") != std::string::npos) damaged.push_back(line);
  REQUIRE(damaged.size() == 1);
  CHECK_THAT(damaged[0], repro::test::Contains("corrupt"));
  CHECK(damaged[0].rfind("t,short,fashion_mnist,", 0) == 0);  // experiment, profile, dataset: its neighbour's
  CHECK_THAT(result.output, !repro::test::Contains("short,,fashion_mnist"));
}
