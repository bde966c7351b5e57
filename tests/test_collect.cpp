// `repro collect FROM TO` (record/copy_records.h): finished runs' record files copied, never checkpoints, weights
// or unfinished runs; plan.json merged with the one TO holds; a different record in TO, a link on either side and a
// damaged summary.json refused one line each, with nothing overwritten or written through a link.
#include <filesystem>

#include "catch.h"
#include "fixtures.h"
#include "record/copy_records.h"
#include "record/folder.h"
#include "record/plan_record.h"
#include "record/run_record.h"
#include "run_repro.h"
#include "util/files.h"

using namespace repro;
namespace fs = std::filesystem;
using repro::test::Contains;

namespace {

RunRecord finished_record(int64_t seed, double test_acc) {
  RunRecord r;
  r.status = RunState::Complete;
  r.experiment = "grid", r.model_config = "a", r.dataset = "fashion_mnist", r.seed = seed;
  r.environment = {{"device", "cpu"}};
  r.trained = true;
  r.epochs_planned = 1, r.epochs_run = 1;
  r.selection = {"best_val", 1};
  r.finished_at = "2026-11-26T12:00:00Z";
  r.selected = RecordedEpoch{1, {{Metric::TestAcc, test_acc}, {Metric::ValAcc, 50.0}}};
  r.final = r.selected;
  return r;
}

// <out>/grid/fashion_mnist/a/seed_<k>: spec, metrics, log, eval/last.json, checkpoint, model, lock and summary.json.
RunFolder finished_run(const fs::path& out, int64_t seed, double test_acc) {
  const RunFolder run(out / ("grid/fashion_mnist/a/seed_" + std::to_string(seed)));
  for (const auto& path : {run.spec_path(), run.metrics_path(), run.log_path(), run.eval_path("last"),
                           run.checkpoint_path(), run.model_path(), run.lock_path()})
    test::write_text(path, path.filename().string() + " of seed " + std::to_string(seed) + "\n");
  write_run_record(run.summary_path(), finished_record(seed, test_acc));
  return run;
}

PlanRecord plan_of(const std::vector<int64_t>& seeds) {
  PlanRecord plan{"grid", "", "grid.yaml", "", "", {}};
  for (const int64_t seed : seeds)
    plan.runs.push_back({"fashion_mnist/a/seed_" + std::to_string(seed), "a", "a", {}, 0, "fashion_mnist", seed});
  return plan;
}

std::vector<int64_t> planned_seeds(const fs::path& plan) {
  std::vector<int64_t> seeds;
  for (const auto& entry : read_plan_record(plan).runs) seeds.push_back(entry.seed);
  return seeds;
}

}  // namespace

TEST_CASE("collect copies finished runs' records and merges plan.json; a second collect changes nothing", "[report]") {
  test::TempDir dir("collect");
  const fs::path out = dir.path() / "out", results = dir.path() / "results";
  const RunFolder run0 = finished_run(out, 0, 71.5);
  const RunFolder unfinished(out / "grid/fashion_mnist/a/seed_1");  // resumable: spec and checkpoint only
  test::write_text(unfinished.spec_path(), "spec\n");
  test::write_text(unfinished.checkpoint_path(), "checkpoint\n");
  write_plan_record(plan_path_in(out / "grid"), plan_of({0, 1}));
  // The results folder already holds another command's seed 2 (a --seeds 2 sweep into another --out).
  write_plan_record(plan_path_in(results / "grid"), plan_of({2}));

  const CollectTally tally = collect_records(out, results);
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
  CHECK(planned_seeds(plan_path_in(results / "grid")) == std::vector<int64_t>{0, 1, 2});

  const CollectTally again = collect_records(out, results);
  CHECK(again.copied == 0);
  CHECK(again.unchanged == 1);
  CHECK(planned_seeds(plan_path_in(results / "grid")) == std::vector<int64_t>{0, 1, 2});
  CHECK(describe_tally(again) ==
        "0 finished run(s) copied, 1 already there, 1 unfinished not copied, 1 plan.json written");
}

TEST_CASE("collect refuses a different record, links and damaged records, and overwrites nothing", "[report]") {
  test::TempDir dir("collect-refused");
  const fs::path out = dir.path() / "out", results = dir.path() / "results";
  finished_run(out, 0, 71.5);
  finished_run(out, 1, 72.5);
  finished_run(out, 2, 73.5);
  const RunFolder damaged(out / "grid/fashion_mnist/a/seed_3");
  test::write_text(damaged.spec_path(), "spec\n");
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

  const CollectTally tally = collect_records(out, results);
  REQUIRE(tally.refused.size() == 4);
  CHECK(tally.copied == 1);  // seed 2
  CHECK_THAT(tally.refused[0], Contains("seed_0 holds a different record of this run") && Contains("not overwritten"));
  CHECK_THAT(tally.refused[1], Contains("seed_1 is a symbolic link (to ") && Contains("nothing is written through"));
  CHECK_THAT(tally.refused[2], Contains("seed_3/summary.json"));
  CHECK_THAT(tally.refused[3], Contains("seed_4/eval is a symbolic link"));
  CHECK_FALSE(fs::exists(results / "grid/fashion_mnist/a/seed_4"));
  CHECK(read_file(other.summary_path()) == other_summary);
  CHECK(fs::is_empty(dir.path() / "elsewhere"));
  CHECK_FALSE(fs::exists(results / "grid/fashion_mnist/a/seed_3"));

  // A plan of another experiment in the results is not merged into; one folder inside the other is refused.
  write_plan_record(plan_path_in(out / "grid"), plan_of({0}));
  PlanRecord another = plan_of({5});
  another.experiment = "another";
  write_plan_record(plan_path_in(results / "grid"), another);
  const CollectTally plans = collect_records(out, results);
  CHECK(plans.plans == 0);
  CHECK_THAT(plans.refused.back(), Contains("not merged with") && Contains("different experiments (another and grid)"));
  CHECK(read_plan_record(plan_path_in(results / "grid")).experiment == "another");
  CHECK_THROWS_WITH(collect_records(out, out / "grid"), Contains("one folder holds the other"));
  CHECK_THROWS_WITH(collect_records(dir.path() / "none", results), Contains("none: no such folder"));
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
  CHECK_THAT(second.output,
             Contains("holds a different record of this run") && Contains("1 already there") && Contains("1 refused"));
}
