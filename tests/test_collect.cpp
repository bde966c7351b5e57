// `repro collect FROM TO` (report/records/copy_records.h): finished runs' record files copied, never checkpoints,
// weights or unfinished runs; plan.json merged with the one TO holds; every record checked as `repro report` checks it;
// a different record in TO, runs of the same row and dataset under other settings, a link anywhere and a damaged record
// refused one line each, the experiment then copied not at all; nothing overwritten or written through a link, and
// collecting again changes no byte.
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "catch.h"
#include "fixtures.h"
#include "record/event_file.h"
#include "record/folder.h"
#include "record/plan_record.h"
#include "record/run_record.h"
#include "report/records/copy_records.h"
#include "report/records/read_record.h"
#include "run_repro.h"
#include "util/files.h"

using namespace repro;
namespace fs = std::filesystem;
using repro::test::Contains;

namespace {

RunRecord finished_record(const std::string& experiment, int64_t seed, double test_acc) {
  RunRecord r;
  r.status = RunState::Complete;
  r.experiment = experiment, r.model_config = "a", r.dataset = "fashion_mnist", r.seed = seed;
  r.environment = {{"device", "cpu"}};
  r.trained = true;
  r.epochs_planned = 1, r.epochs_run = 1;
  r.selection = {"best_val", 1};
  r.finished_at = "2026-11-26T12:00:00Z";
  r.selected = RecordedEpoch{1, {{Metric::TestAcc, test_acc}, {Metric::ValAcc, 50.0}}};
  r.final = r.selected;
  return r;
}

const std::string kMetricsHeader = "epoch,step,lr,train_loss,train_acc,val_loss,val_acc,test_loss,test_acc,seconds\n";

std::string spec_text(const std::string& experiment, int64_t seed, const std::string& lr) {
  return "experiment: " + experiment + "\nmodel_config: a\ndataset: fashion_mnist\nseed: " + std::to_string(seed) +
         "\ntrain:\n  lr: " + lr + "\n";
}

// <out>/<experiment>/fashion_mnist/a/seed_<k>: spec, metrics, log, eval/last.json, checkpoint, model, lock and
// summary.json, as a finished run leaves them (metrics.csv agreeing with summary.json).
RunFolder finished_run(const fs::path& out, int64_t seed, double test_acc, const std::string& lr = "0.001",
                       const std::string& experiment = "grid") {
  const RunFolder run(out / (experiment + "/fashion_mnist/a/seed_" + std::to_string(seed)));
  test::write_text(run.spec_path(), spec_text(experiment, seed, lr));
  test::write_text(run.metrics_path(),
                   kMetricsHeader + "1,4,0.001,0.9,60,0.5,50,0.8," + std::to_string(test_acc) + ",1.5\n");
  for (const auto& path :
       {run.log_path(), run.eval_path("last"), run.checkpoint_path(), run.model_path(), run.lock_path()})
    test::write_text(path, path.filename().string() + " of seed " + std::to_string(seed) + "\n");
  write_run_record(run.summary_path(), finished_record(experiment, seed, test_acc));
  return run;
}

PlanRecord plan_of(const std::vector<int64_t>& seeds, const std::string& experiment = "grid") {
  PlanRecord plan{experiment, "", experiment + ".yaml", "", "", {}};
  for (const int64_t seed : seeds) {
    PlanEntry entry;
    entry.id() = RunId{experiment, "", "fashion_mnist", "a", "a", {}, seed};
    plan.runs.push_back(entry);
  }
  return plan;
}

std::vector<int64_t> planned_seeds(const fs::path& plan) {
  std::vector<int64_t> seeds;
  for (const auto& entry : read_plan_record(plan).runs) seeds.push_back(entry.seed);
  return seeds;
}

// Every file below `root` with its bytes and its modification time: what "changes no byte" compares.
std::map<std::string, std::pair<std::string, fs::file_time_type>> snapshot(const fs::path& root) {
  std::map<std::string, std::pair<std::string, fs::file_time_type>> files;
  for (const auto& entry : fs::recursive_directory_iterator(root))
    if (entry.is_regular_file())
      files[entry.path().string()] = {read_file(entry.path()), fs::last_write_time(entry.path())};
  return files;
}

}  // namespace

TEST_CASE("collect copies finished runs' records and merges plan.json; a second collect changes no byte", "[report]") {
  test::TempDir dir("collect");
  const fs::path out = dir.path() / "out", results = dir.path() / "results";
  const RunFolder run0 = finished_run(out, 0, 71.5);
  const RunFolder unfinished(out / "grid/fashion_mnist/a/seed_1");  // resumable: spec and checkpoint only
  test::write_text(unfinished.spec_path(), spec_text("grid", 1, "0.001"));
  test::write_text(unfinished.checkpoint_path(), "checkpoint\n");
  write_plan_record(plan_path_in(out / "grid"), plan_of({0, 1}));
  // The results folder already holds another command's seed 2 (a --seeds 2 sweep into another --out).
  write_plan_record(plan_path_in(results / "grid"), plan_of({2}));

  const CollectTally tally = collect_records(out, results, record_problem);
  CHECK(tally.refused.empty());
  CHECK(tally.copied == 1);
  CHECK(tally.unfinished == 1);
  CHECK(tally.plans == 1);
  const RunFolder copy(results / "grid/fashion_mnist/a/seed_0");
  CHECK(read_file(copy.summary_path()) == read_file(run0.summary_path()));
  CHECK(read_file(copy.metrics_path()) == read_file(run0.metrics_path()));
  CHECK(read_file(copy.eval_path("last")) == read_file(run0.eval_path("last")));
  CHECK(fs::exists(copy.spec_path()));
  CHECK(fs::exists(copy.log_path()));
  CHECK_FALSE(fs::exists(copy.checkpoint_path()));  // records, not weights or locks
  CHECK_FALSE(fs::exists(copy.model_path()));
  CHECK_FALSE(fs::exists(copy.lock_path()));
  CHECK_FALSE(fs::exists(results / "grid/fashion_mnist/a/seed_1"));
  CHECK(planned_seeds(plan_path_in(results / "grid")) == std::vector<int64_t>{0, 2});  // seed 1 unfinished: not listed

  const auto before = snapshot(results);
  const CollectTally again = collect_records(out, results, record_problem);
  CHECK(again.copied == 0);
  CHECK(again.unchanged == 1);
  CHECK(again.plans == 0);                             // the merged plan is what TO holds: not rewritten
  const bool unchanged = snapshot(results) == before;  // no byte, and no file's time, changed (plan.json included)
  CHECK(unchanged);
  CHECK(describe_tally(again) ==
        "0 finished run(s) copied, 1 already there, 1 unfinished not copied, 0 plan.json written");
}

TEST_CASE("collect lists in the results' plan.json only runs the results hold, and the plan-less records there",
          "[report]") {
  test::TempDir dir("collect-plan-runs");
  const fs::path out = dir.path() / "out", results = dir.path() / "results";
  // A sweep of seeds 0-2 under way: seed 1 resumable, seed 2 not started.
  const RunFolder unfinished(out / "grid/fashion_mnist/a/seed_1");
  test::write_text(unfinished.spec_path(), spec_text("grid", 1, "0.001"));
  test::write_text(unfinished.checkpoint_path(), "checkpoint\n");
  write_plan_record(plan_path_in(out / "grid"), plan_of({0, 1, 2}));
  // The results hold seed 5 without a plan (copied before without one), and a record of another experiment.
  finished_run(results, 5, 70.5);
  write_run_record(results / "grid/fashion_mnist/a/seed_6" / kSummaryFile, finished_record("another", 6, 60.0));

  const CollectTally none = collect_records(out, results, record_problem);  // no run finished yet
  CHECK(none.refused.empty());
  CHECK(none.unfinished == 1);
  CHECK(none.plans == 0);
  CHECK_FALSE(fs::exists(plan_path_in(results / "grid")));  // no plan of runs the results do not hold

  finished_run(out, 0, 71.5);
  const CollectTally tally = collect_records(out, results, record_problem);
  CHECK(tally.refused.empty());
  CHECK(tally.copied == 1);
  CHECK(tally.plans == 1);
  CHECK(planned_seeds(plan_path_in(results / "grid")) == std::vector<int64_t>{0, 5});  // not 1, 2 or another's 6
  CHECK(read_plan_record(plan_path_in(results / "grid")).spec_file == "grid.yaml");  // the sweep's header
}

TEST_CASE(
    "collect refuses a different record, links and damaged records, and then copies nothing of that "
    "experiment",
    "[report]") {
  test::TempDir dir("collect-refused");
  const fs::path out = dir.path() / "out", results = dir.path() / "results";
  finished_run(out, 0, 71.5);
  finished_run(out, 1, 72.5);
  finished_run(out, 2, 73.5);
  const RunFolder damaged(out / "grid/fashion_mnist/a/seed_3");
  test::write_text(damaged.spec_path(), spec_text("grid", 3, "0.001"));
  test::write_text(damaged.summary_path(), "{\"status\": 7}\n");
  // In the results: seed 0 trained elsewhere (another accuracy), seed 1's folder a link to a folder outside.
  const RunFolder other = finished_run(results, 0, 60.0);
  const std::string other_summary = read_file(other.summary_path());
  fs::create_directories(dir.path() / "elsewhere");
  fs::create_directory_symlink(dir.path() / "elsewhere", results / "grid/fashion_mnist/a/seed_1");
  // In the out folder: seed 4's eval/ a link to a folder of evaluations outside the run.
  const RunFolder linked_eval = finished_run(out, 4, 74.5);
  fs::rename(linked_eval.eval_dir(), dir.path() / "outside-eval");
  fs::create_directory_symlink(dir.path() / "outside-eval", linked_eval.eval_dir());
  // Another experiment, whole: copied all the same.
  finished_run(out, 0, 80.0, "0.001", "clean");

  const CollectTally tally = collect_records(out, results, record_problem);
  std::string refused;
  for (const auto& line : tally.refused) refused += line + "\n";
  INFO(refused);
  REQUIRE(tally.refused.size() == 5);
  CHECK(tally.copied == 1);  // clean's seed 0; grid's seed 2 is refused with its experiment
  CHECK(tally.experiments_refused == 1);
  CHECK_THAT(tally.refused[0], Contains("seed_4/eval is a symbolic link (to ") && Contains("never what a link names"));
  CHECK_THAT(refused, Contains("seed_0 holds a different record of this run") && Contains("not overwritten"));
  CHECK_THAT(refused, Contains("seed_1 is a symbolic link (to ") && Contains("nothing is written through"));
  CHECK_THAT(refused, Contains("seed_3/summary.json: 'status' is 7"));
  CHECK_THAT(tally.refused.back(), Contains("grid: nothing of this experiment was copied (3 refusal(s) in it, and "
                                            "the problem(s) above)") &&
                                       Contains("whole or not at all"));
  CHECK_THAT(describe_tally(tally), Contains("4 refused (1 experiment(s) not copied)"));
  CHECK_FALSE(fs::exists(results / "grid/fashion_mnist/a/seed_2"));  // all or nothing
  CHECK_FALSE(fs::exists(results / "grid/fashion_mnist/a/seed_4"));
  CHECK_FALSE(fs::exists(results / "grid/fashion_mnist/a/seed_3"));
  CHECK(fs::exists(results / "clean/fashion_mnist/a/seed_0/summary.json"));
  CHECK(read_file(other.summary_path()) == other_summary);
  CHECK(fs::is_empty(dir.path() / "elsewhere"));

  // A plan of another experiment in the results is not merged into; one folder inside the other is refused.
  test::TempDir second("collect-plans");
  const fs::path out2 = second.path() / "out", results2 = second.path() / "results";
  finished_run(out2, 0, 71.5);
  write_plan_record(plan_path_in(out2 / "grid"), plan_of({0}));
  write_plan_record(plan_path_in(results2 / "grid"), plan_of({5}, "another"));
  const CollectTally plans = collect_records(out2, results2, record_problem);
  CHECK(plans.plans == 0);
  CHECK(plans.copied == 0);
  REQUIRE(plans.refused.size() == 2);
  CHECK_THAT(plans.refused[0], Contains("not merged with") && Contains("different experiments (another and grid)"));
  CHECK(read_plan_record(plan_path_in(results2 / "grid")).experiment == "another");
  CHECK_THROWS_WITH(collect_records(out, out / "grid", record_problem), Contains("one folder holds the other"));
  CHECK_THROWS_WITH(collect_records(dir.path() / "none", results, record_problem), Contains("none: no such folder"));
}

TEST_CASE("collect checks every record as report does: a short, missing or disagreeing metrics.csv is refused",
          "[report]") {
  test::TempDir dir("collect-checked");
  const fs::path results = dir.path() / "results";
  const std::vector<std::pair<std::string, std::function<void(const RunFolder&)>>> damage = {
      {"metrics.csv: is missing (summary.json says 1 epochs ran)",
       [](const RunFolder& run) { fs::remove(run.metrics_path()); }},
      {"metrics.csv has 0 epochs", [](const RunFolder& run) { test::write_text(run.metrics_path(), kMetricsHeader); }},
      {"metrics.csv epoch 1 has test_acc 10.0",
       [](const RunFolder& run) {
         test::write_text(run.metrics_path(), kMetricsHeader + "1,4,0.001,0.9,60,0.5,50,0.8,10,1.5\n");
       }},
      {"metrics.csv: is a folder, expected a metrics.csv",
       [](const RunFolder& run) {
         fs::remove(run.metrics_path());
         fs::create_directory(run.metrics_path());
       }},
  };
  int row = 0;
  for (const auto& [words, spoil] : damage) {
    INFO(words);
    const fs::path out = dir.path() / ("out" + std::to_string(row++));
    finished_run(out, 0, 71.5);
    spoil(finished_run(out, 1, 72.5));
    const CollectTally tally = collect_records(out, results, record_problem);
    REQUIRE(tally.refused.size() == 2);
    CHECK_THAT(tally.refused[0], Contains("seed_1/" + words) && Contains("(repro report marks it so): not copied"));
    CHECK(tally.copied == 0);
    CHECK_FALSE(fs::exists(results / "grid"));  // seed 0 neither: the experiment whole or not at all
  }
}

TEST_CASE("collect refuses runs of the same row and dataset trained under other settings beside the old ones",
          "[report]") {
  test::TempDir dir("collect-settings");
  const fs::path out = dir.path() / "out", results = dir.path() / "results";
  finished_run(results, 0, 71.5, "0.001");  // collected earlier
  finished_run(out, 1, 75.0, "0.003");      // the same experiment, another learning rate: one table, two rates
  const CollectTally tally = collect_records(out, results, record_problem);
  REQUIRE(tally.refused.size() == 2);
  CHECK_THAT(tally.refused[0], Contains("seed_0 holds the same row and dataset trained under other settings") &&
                                   Contains("train.lr: 0.001 -> 0.003") && Contains("one table would mix them"));
  CHECK_FALSE(fs::exists(results / "grid/fashion_mnist/a/seed_1"));
  // The same settings (another seed only): copied.
  finished_run(out, 1, 75.0, "0.001");
  const CollectTally same = collect_records(out, results, record_problem);
  CHECK(same.refused.empty());
  CHECK(same.copied == 1);
}

TEST_CASE("walk_tree names a folder it cannot list and goes on with the others", "[report]") {
  test::TempDir dir("walk");
  for (const char* folder : {"a/x", "b/y", "c/z"}) fs::create_directories(dir.path() / folder);
  std::vector<std::string> visited, unreadable;
  walk_tree(
      dir.path(),
      [&](const fs::directory_entry& entry) {
        visited.push_back(entry.path().lexically_relative(dir.path()).string());
        if (entry.path().filename() == "a") fs::remove_all(dir.path() / "b/y");  // gone before it is listed
        if (entry.path().filename() == "b") fs::rename(dir.path() / "c", dir.path() / "c2");
      },
      [&](const fs::path& folder, const std::string& reason) {
        unreadable.push_back(folder.lexically_relative(dir.path()).string() + ": " + reason);
      });
  CHECK(visited == std::vector<std::string>{"a", "a/x", "b", "c"});
  REQUIRE(unreadable.size() == 1);
  CHECK_THAT(unreadable[0], Contains("c: No such file or directory"));
}

TEST_CASE("repro collect prints its tally, one line per refusal, and exits 1 when it refused something", "[cli]") {
  test::TempDir dir("collect-cli");
  const fs::path out = dir.path() / "out", results = dir.path() / "results";
  finished_run(out, 0, 71.5);
  const test::Result first = test::run_repro("collect " + out.string() + " " + results.string());
  INFO(first.output);
  CHECK(first.exit_code == 0);
  CHECK_THAT(first.output, Contains("repro collect: 1 finished run(s) copied, 0 already there"));
  finished_run(results, 1, 10.0);
  finished_run(out, 1, 20.0);
  const test::Result second = test::run_repro("collect " + out.string() + " " + results.string());
  INFO(second.output);
  CHECK(second.exit_code == 1);
  CHECK_THAT(second.output, Contains("holds a different record of this run") && Contains("0 already there") &&
                                Contains("1 refused (1 experiment(s) not copied)"));
  // A run folder that is a link below FROM: refused, exit 1 (it was a warning and exit 0).
  fs::remove_all(out / "grid/fashion_mnist/a/seed_1");
  fs::create_directory_symlink(out / "grid/fashion_mnist/a/seed_0", out / "grid/fashion_mnist/a/seed_1");
  fs::remove_all(results / "grid/fashion_mnist/a/seed_1");
  const test::Result linked = test::run_repro("collect " + out.string() + " " + results.string());
  INFO(linked.output);
  CHECK(linked.exit_code == 1);
  CHECK_THAT(linked.output, Contains("seed_1 is a symbolic link (to ") && Contains("nothing of this experiment"));
}

// Issue 57: a disk that filled up mid-collect left half an experiment in TO. Everything is written into a folder of
// the collect's own inside TO first, then renamed into place: a failed write leaves TO as it was.
TEST_CASE("repro collect whose write fails (a full disk, a file-size limit) leaves the results folder as it was",
          "[cli]") {
  test::TempDir dir("collect-full");
  const fs::path out = dir.path() / "out", results = dir.path() / "results";
  finished_run(out, 0, 71.5);
  const RunFolder big = finished_run(out, 1, 72.5);
  test::write_text(big.log_path(), std::string(64 * 1024, 'x'));  // past the limit below, copied after seed 0's
  write_plan_record(plan_path_in(out / "grid"), plan_of({0, 1}));
  const std::string collect = "collect " + out.string() + " " + results.string();
  const auto limited = [&] {  // 64 blocks of 512 bytes: seed 0's files fit, seed 1's log.txt does not
    return test::run_command("ulimit -f 64; exec " + std::string(REPRO_BINARY) + " " + collect);
  };
  const test::Result fresh = limited();
  INFO(fresh.output);
  CHECK(fresh.exit_code == 2);
  CHECK_THAT(fresh.output, Contains("cannot write ") && Contains("log.txt") && Contains("File too large"));
  CHECK_FALSE(fs::exists(results));  // made by the collect, removed with it
  // Into a results folder that holds another experiment: not a byte of it changes, no staging folder is left.
  finished_run(results, 0, 60.0, "0.001", "other");
  const auto before = snapshot(results);
  const test::Result merged = limited();
  INFO(merged.output);
  CHECK(merged.exit_code == 2);
  const bool unchanged = snapshot(results) == before;
  CHECK(unchanged);
  CHECK(std::distance(fs::directory_iterator(results), fs::directory_iterator()) == 1);  // only other/
  // Without the limit, the same command copies both runs.
  const test::Result whole = test::run_repro(collect);
  INFO(whole.output);
  CHECK(whole.exit_code == 0);
  CHECK(read_file(RunFolder(results / "grid/fashion_mnist/a/seed_1").log_path()).size() == 64 * 1024);
  CHECK(fs::exists(RunFolder(results / "grid/fashion_mnist/a/seed_0").summary_path()));
}

TEST_CASE("collect checks a finished run's event file as status does: a damaged one is not copied", "[report]") {
  if (!REPRO_EXPECT_EVENT_FILES) return;  // a build without event files writes none
  test::TempDir dir("collect-events");
  const fs::path out = dir.path() / "out", results = dir.path() / "results";
  const RunFolder run = finished_run(out, 0, 71.5);
  {
    EventFile file = EventFile::create(run.events_path(), 1e9);
    for (int step = 1; step <= 4; ++step) file.scalar("train/loss", step, 1.0 / step, 1e9 + step);
  }
  std::string bytes = read_file(run.events_path());
  const size_t middle = bytes.size() / 2;
  bytes[middle] ^= 0x01;  // a record mid-file
  write_file_atomic(run.events_path(), bytes);
  REQUIRE_FALSE(event_file_problem(run.events_path()).empty());
  const CollectTally tally = collect_records(out, results, record_problem);
  REQUIRE(tally.refused.size() == 2);
  CHECK_THAT(tally.refused[0],
             Contains(run.events_path().string() + ": a damaged record at byte ") && Contains("not copied"));
  CHECK(tally.copied == 0);
  CHECK_FALSE(fs::exists(results / "grid"));
}

// Issue 64, item 5: a killed collect leaves its staging folder (`.collect.tmp-PID`) inside TO. The next collect into
// TO removes it when its process is gone (never a live collect's), and a staging folder found below FROM (a results
// folder collected from) is no records: skipped and named, never copied.
TEST_CASE("collect removes its own stale staging folders from TO, never a live one's, and copies none from FROM",
          "[cli]") {
  test::TempDir dir("collect-stale");
  const fs::path out = dir.path() / "out", results = dir.path() / "results";
  finished_run(out, 0, 71.5);
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);                                                               // a pid no process has
  const std::string dead = ".collect.tmp-" + std::to_string(child), live = ".collect.tmp-1";  // pid 1 is alive
  finished_run(results / dead, 3, 50.0);
  finished_run(results / live, 4, 50.0);
  finished_run(out / dead, 5, 55.0);  // FROM holds a staging folder too
  const test::Result collected = test::run_repro("collect " + out.string() + " " + results.string());
  INFO(collected.output);
  CHECK(collected.exit_code == 0);
  CHECK_THAT(collected.output, Contains("repro collect: 1 finished run(s) copied"));
  CHECK_THAT(collected.output, Contains((out / dead).string() + ": skipped, not records"));
  CHECK_FALSE(fs::exists(results / dead));  // TO's own leftover, its process gone: removed
  CHECK(fs::exists(RunFolder(results / live / "grid/fashion_mnist/a/seed_4").summary_path()));  // a live one's: kept
  CHECK(fs::exists(RunFolder(results / "grid/fashion_mnist/a/seed_0").summary_path()));
  CHECK_FALSE(fs::exists(results / "grid/fashion_mnist/a/seed_5"));
  CHECK_FALSE(fs::exists(results / dead / "grid"));
}
