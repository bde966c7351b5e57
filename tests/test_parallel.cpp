// `repro run --jobs N` (issue 15, one machine): the thread plan and GPU assignment as pure
// functions, and end to end: the same records as --jobs 1, a SIGKILLed child that the others
// outlive and that resumes, two invocations on one --out, the --index child entry.
#include <signal.h>
#include <unistd.h>

#include "catch.h"
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "fixtures.h"
#include "record/plan_record.h"
#include "run/grid_progress.h"
#include "run/lock.h"
#include "run/parallel.h"
#include "run/status.h"
#include "run/threads.h"
#include "train/progress.h"
#include "run_repro.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

using namespace repro;
using repro::test::Contains;

namespace {

// Two configurations x two seeds of a one-block ViT, 3 epochs of 6 steps on 350 training images.
std::string write_grid_spec(const test::TempDir& dir) {
  return test::fashion_spec(dir, "grid.yaml",
                            "experiment: grid\ndatasets: [fashion_mnist]\nseeds: [0, 1]\n"
                            "model: {dim: 16, depth: 1, heads: 2, patch: 7, dropout: 0.1, ffn: {ratio: 2}}\n"
                            "data: {val_fraction: 0.125, verify: off}\n"
                            "train: {epochs: 3, batch_size: 64, eval_batch_size: 128, lr: 2e-3, warmup_steps: 4}\n"
                            "models:\n  - name: vit\n  - name: vit-mlp4\n    model: {ffn: {ratio: 4}}\n");
}

const char* const kRuns[] = {"vit/seed_0", "vit/seed_1", "vit-mlp4/seed_0", "vit-mlp4/seed_1"};

// summary.json's status, selected epoch and its metrics (not times or the environment).
std::string selected_metrics(const std::filesystem::path& run) {
  const auto summary = nlohmann::json::parse(read_file(run / "summary.json"));
  return summary.at("status").dump() + summary.at("selection").dump() + summary.at("selected").dump();
}

}  // namespace

TEST_CASE("the thread plan splits the usable CPUs between jobs", "[spec]") {
  CpuLimits two;
  two.affinity = 2;
  CHECK(plan_threads(two, 2, 0).describe() == "2 jobs x 1 thread on 2 usable CPUs (affinity 2, no cgroup quota)");
  CHECK(plan_threads(two, 1, 0).threads_per_job == 2);
  CHECK(plan_threads(two, 5, 0).threads_per_job == 1);  // never 0
  CHECK(plan_threads(two, 2, 3).threads_per_job == 3);  // --threads-per-job wins
  CHECK_THAT(plan_threads(two, 2, 3).describe(), Contains("threads per job given"));

  CpuLimits quota;
  quota.affinity = 16;
  quota.quota_cpus = 4.5;  // cpu.max "450000 100000"
  const ThreadPlan q = plan_threads(quota, 2, 0);
  CHECK(q.usable == 4);
  CHECK(q.threads_per_job == 2);
  CHECK_THAT(q.describe(), Contains("cgroup quota 4.5 CPUs"));
  quota.quota_cpus = 0.5;
  CHECK(plan_threads(quota, 1, 0).usable == 1);

  CpuLimits slurm;
  slurm.affinity = 64;
  slurm.quota_cpus = 32;
  slurm.slurm_cpus = 6;
  const ThreadPlan s = plan_threads(slurm, 3, 0);
  CHECK(s.usable == 6);
  CHECK(s.threads_per_job == 2);
  CHECK_THAT(s.describe(), Contains("SLURM_CPUS_PER_TASK 6"));
}

TEST_CASE("threads and jobs beyond the usable CPUs are refused, naming the option and the limit", "[spec]") {
  CpuLimits two;
  two.affinity = 2;
  CHECK_NOTHROW(check_cpu_request(plan_threads(two, 2, 1), 1, "--threads-per-job"));
  CHECK_NOTHROW(check_cpu_request(plan_threads(two, 1, 2), 2, "--threads"));
  CHECK_THROWS_WITH(check_cpu_request(plan_threads(two, 1, 3), 3, "--threads"),
                    "--threads 3: more than the 2 usable CPUs (affinity 2, no cgroup quota); give at most 2, or "
                    "leave it out for the default");
  CHECK_THROWS_WITH(check_cpu_request(plan_threads(two, 3, 0), 0, "--threads"),
                    Contains("--jobs 3: more than the 2 usable CPUs") && Contains("give at most 2"));
  // With CUDA devices, jobs up to the device slots: the extra ones wait for a device, not a CPU.
  CHECK_NOTHROW(check_cpu_request(plan_threads(two, 8, 0), 0, "--threads", 8));
  CHECK_THROWS_WITH(check_cpu_request(plan_threads(two, 9, 0), 0, "--threads", 8),
                    Contains("--jobs 9: more than the 8 device slots and the 2 usable CPUs"));
  CpuLimits slurm;
  slurm.affinity = 64;
  slurm.slurm_cpus = 4;
  CHECK_THROWS_WITH(check_cpu_request(plan_threads(slurm, 1, 8), 8, "--threads"),
                    Contains("more than the 4 usable CPUs") && Contains("SLURM_CPUS_PER_TASK 4"));
}

TEST_CASE("cgroup quotas and SLURM_CPUS_PER_TASK are read exactly", "[spec]") {
  CHECK_FALSE(parse_cgroup2_cpu_max("max 100000\n", "cpu.max").has_value());
  CHECK(parse_cgroup2_cpu_max("150000 100000\n", "cpu.max") == Approx(1.5));
  CHECK_THROWS_WITH(parse_cgroup2_cpu_max("lots", "/sys/fs/cgroup/cpu.max"),
                    Contains("/sys/fs/cgroup/cpu.max") && Contains("'lots'"));
  CHECK_THROWS_AS(parse_cgroup2_cpu_max("100000 0", "cpu.max"), Error);
  CHECK_FALSE(parse_cgroup1_quota("-1\n", "100000\n", "q").has_value());
  CHECK(parse_cgroup1_quota("200000\n", "100000\n", "q") == Approx(2.0));
  CHECK_THROWS_WITH(parse_cgroup1_quota("x", "100000", "cpu.cfs_quota_us"), Contains("cpu.cfs_quota_us"));
  CHECK_FALSE(parse_slurm_cpus(nullptr).has_value());
  CHECK_FALSE(parse_slurm_cpus("").has_value());
  CHECK(parse_slurm_cpus("4") == 4);
  CHECK_THROWS_WITH(parse_slurm_cpus("2x"), Contains("SLURM_CPUS_PER_TASK") && Contains("'2x'"));
  const CpuLimits here = read_cpu_limits();  // this machine: at least its own CPU
  CHECK(here.affinity >= 1);
}

TEST_CASE("GPUs are handed out round robin with at most K runs on each", "[spec]") {
  DeviceSlots slots({0, 1}, 2);
  CHECK(slots.capacity() == 4);
  CHECK(slots.acquire() == 0);
  CHECK(slots.acquire() == 1);
  CHECK(slots.acquire() == 0);
  CHECK(slots.acquire() == 1);
  CHECK_FALSE(slots.acquire().has_value());  // all full: the next run waits
  slots.release(1);
  CHECK(slots.acquire() == 1);
  DeviceSlots one_each({3, 5, 6}, 1);
  CHECK(one_each.acquire() == 3);
  CHECK(one_each.acquire() == 5);
  one_each.release(3);
  CHECK(one_each.acquire() == 6);
  CHECK(one_each.acquire() == 3);
  CHECK_FALSE(DeviceSlots({}, 1).acquire().has_value());

  CHECK(parse_devices("0,2, 3", "--devices") == std::vector<int>{0, 2, 3});
  CHECK_THROWS_WITH(parse_devices("0,0", "--devices"), Contains("device 0 is given twice"));
  CHECK_THROWS_WITH(parse_devices("", "--devices"), Contains("--devices"));
  CHECK_THROWS_AS(parse_devices("gpu1", "--devices"), Error);
  CHECK_THROWS_AS(parse_devices("-1", "--devices"), Error);
  CHECK(child_visible_device(nullptr, 1) == "1");
  CHECK(child_visible_device("", 0) == "0");
  CHECK(child_visible_device("4,6", 1) == "6");  // an index into the parent's own visible devices
  CHECK_THROWS_WITH(child_visible_device("4,6", 2), Contains("CUDA_VISIBLE_DEVICES='4,6'"));
}

TEST_CASE("the grid's ETA scales a resumed run's time to its whole run", "[spec]") {
  // Issue 48: a run resumed at its last epoch ended in 10 s and the 2 runs still waiting were estimated at 10 s
  // each ("complete in 10s, 24 left, ETA 1m52s"); it trained 1 of its 10 epochs here: 100 s a run.
  GridProgress resumed(/*plan_runs=*/5, /*to_train=*/3, /*slots=*/1, /*live=*/false);
  resumed.run_ended(10.0, /*trained=*/true, /*epochs_before=*/9, /*epochs_here=*/1);
  REQUIRE(resumed.eta_seconds({}).has_value());
  CHECK(*resumed.eta_seconds({}) == Approx(200.0));
  GridProgress fresh(5, 3, 2, false);  // a whole run of 30 s, two slots: 2 waiting runs side by side
  fresh.run_ended(30.0, true, 0, 10);
  CHECK(*fresh.eta_seconds({}) == Approx(30.0));
  GridProgress skipped(5, 3, 1, false);  // a run held elsewhere says nothing of the pace
  skipped.run_ended(0.0, false);
  CHECK_FALSE(skipped.eta_seconds({}).has_value());
  CHECK(skipped.remaining_text({}) == "2 left, ETA ?");
}

TEST_CASE("the lanes of one process give one ETA for the whole command, whichever lane prints it", "[spec]") {
  // Issue 66: the CPU queue's two lanes printed "all 1h49m" and "all 3h01m" at once, each lane counting half the
  // runs at its own pace. Five runs, two lanes, each lane 60 s into a run of 100 s (40 s left).
  LanePace pace(/*lanes=*/2, /*to_train=*/5);
  pace.take(), pace.take();
  CHECK(std::isnan(pace.eta_all(0, NAN, NAN)));  // nothing known of the pace yet
  pace.eta_all(0, 40, 100);
  const double from_lane1 = pace.eta_all(1, 40, 100);
  // 3 waiting runs of 100 s: two start at 40 s, one on each lane, the third at 140 s: all end at 240 s.
  CHECK(from_lane1 == Approx(240));
  CHECK(pace.eta_all(0, 40, 100) == Approx(from_lane1));  // the same number from the other lane
  // Lane 0's run ends in 90 s (the pace of the rest), it takes the next; lane 1's is nearly done: of the 2 runs
  // still waiting, lane 1 takes one at 5 s (ends 95 s), lane 0 the other at 80 s (ends 170 s).
  pace.ended(0, 90);
  pace.take();
  pace.eta_all(1, 5, 100);
  CHECK(pace.eta_all(0, 80, 90) == Approx(170));
  // The last run alone: never less than its own time left; a run is not split across lanes (the queue's last
  // DGT x4: two runs 750 s from their end, one waiting of 830 s: 1,580 s, not (750 + 750 + 830) / 2).
  CHECK(eta_of_runs({300, 5}, 0, 90, 2) == Approx(300));
  CHECK(eta_of_runs({750, 750}, 1, 830, 2) == Approx(1580));
  CHECK(eta_of_runs({}, 3, 10, 2) == Approx(20));  // idle slots start at once
  CHECK(std::isnan(eta_of_runs({5}, 1, NAN, 1)));
}

TEST_CASE("repro run --jobs 2 gives --jobs 1's records; a SIGKILLed child leaves the others running and resumes",
          "[cli]") {
  test::TempDir dir("parallel-records");
  const std::string spec = write_grid_spec(dir);
  const auto calm = dir.path() / "calm", parallel = dir.path() / "parallel", killed = dir.path() / "killed";
  const test::Result one = test::run_repro("run " + spec + " --threads 1 --out " + calm.string());
  INFO(one.output);
  REQUIRE(one.exit_code == 0);
  const test::Result two = test::run_repro("run " + spec + " --jobs 2 --threads-per-job 1 --out " + parallel.string());
  INFO(two.output);
  CHECK(two.exit_code == 0);
  CHECK_THAT(two.output, Contains("2 jobs x 1 thread on") && Contains("started (pid ") && Contains("| vit-mlp4 |") &&
                             Contains("complete in"));
  // The children trained the frozen plan (<experiment>/jobs/<pid>/tasks.json), removed once they ended.
  CHECK_FALSE(std::filesystem::exists(parallel / "grid/jobs"));
  // 350 training images at batch 64: 6 steps per epoch; step 9 is mid-epoch 2 of run 1 only.
  const test::Result kill = test::run_repro_faults(
      "run " + spec + " --jobs 2 --threads-per-job 1 --kill-run 0 --kill-at-step 9 --out " + killed.string());
  INFO(kill.output);
  CHECK(kill.exit_code == 1);
  CHECK_THAT(kill.output, Contains("run 1/4 (vit on fashion_mnist, seed 0) failed") && Contains("killed by signal 9") &&
                              Contains("1 of 4 runs failed"));
  const auto killed_run = killed / "grid/fashion_mnist/vit/seed_0";
  CHECK(std::filesystem::exists(killed_run / "checkpoint.pt"));
  CHECK_FALSE(std::filesystem::exists(killed_run / "summary.json"));
  for (const char* run : {"vit/seed_1", "vit-mlp4/seed_0", "vit-mlp4/seed_1"})
    CHECK_THAT(read_file(killed / "grid/fashion_mnist" / run / "summary.json"), Contains("\"status\": \"complete\""));
  const test::Result resumed =
      test::run_repro("run " + spec + " --jobs 2 --threads-per-job 1 --out " + killed.string());
  INFO(resumed.output);
  CHECK(resumed.exit_code == 0);
  CHECK_THAT(resumed.output, Contains("3 of 4 runs were already finished"));
  CHECK_THAT(read_file(killed_run / "log.txt"), Contains("resuming"));
  for (const char* run : kRuns) {
    const auto rel = std::filesystem::path("grid/fashion_mnist") / run;
    INFO(rel.string());
    REQUIRE(split_lines(read_file(calm / rel / "metrics.csv")).size() == 4);  // header + 3 epochs
    CHECK(test::metrics_without_seconds(parallel / rel / "metrics.csv") ==
          test::metrics_without_seconds(calm / rel / "metrics.csv"));
    CHECK(test::metrics_without_seconds(killed / rel / "metrics.csv") ==
          test::metrics_without_seconds(calm / rel / "metrics.csv"));
    CHECK(selected_metrics(parallel / rel) == selected_metrics(calm / rel));
    CHECK(selected_metrics(killed / rel) == selected_metrics(calm / rel));
  }
}

TEST_CASE("two invocations with --jobs 2 on one --out train each run exactly once", "[cli]") {
  test::TempDir dir("parallel-two");
  const std::string spec = write_grid_spec(dir);
  const std::string command = std::string(REPRO_BINARY) + " sweep " + spec + " --seeds 0-2 --jobs 2 --out " +
                              (dir.path() / "runs").string() + " 2>&1";
  FILE* first = ::popen(command.c_str(), "r");
  FILE* second = ::popen(command.c_str(), "r");
  REQUIRE(first != nullptr);
  REQUIRE(second != nullptr);
  std::string output;
  char buffer[4096];
  for (FILE* pipe : {first, second})
    while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int status_first = ::pclose(first), status_second = ::pclose(second);
  INFO(output);
  CHECK(status_first == 0);
  CHECK(status_second == 0);
  for (const char* config : {"vit", "vit-mlp4"})
    for (int seed = 0; seed < 3; ++seed) {
      const auto run = dir.path() / "runs/grid/fashion_mnist" / config / ("seed_" + std::to_string(seed));
      INFO(run.string());
      CHECK(test::count_of(read_file(run / "log.txt"), "] [info] run ") ==
            1);  // trained by one child of one invocation
      CHECK(split_lines(read_file(run / "metrics.csv")).size() == 4);
      CHECK_THAT(read_file(run / "summary.json"), Contains("\"status\": \"complete\""));
    }
}

TEST_CASE("repro status follows a sweep from its own command line (--set, --seeds), while --jobs 2 trains it",
          "[cli]") {
  test::TempDir dir("status-sweep");
  const std::string spec = write_grid_spec(dir);
  const std::string spec_file = (dir.path() / "grid.yaml").string(), runs = (dir.path() / "runs").string();
  const std::string sweep = " --set train.lr=1e-3,3e-3 --seeds 0 --out " + runs;
  const std::string command = std::string(REPRO_BINARY) + " sweep " + spec + sweep + " --jobs 2 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  // While it trains: the sweep's 4 runs (2 rows x 2 learning rates x seed 0), whatever they stand at.
  const test::Result during = test::run_repro("status " + spec_file + sweep);
  std::string output;
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  INFO(output);
  REQUIRE(::pclose(pipe) == 0);
  INFO(during.output);
  CHECK(during.exit_code == 0);
  CHECK_THAT(during.output, Contains("grid (") && Contains("): 4 runs: "));
  const test::Result after = test::run_repro("status " + spec_file + sweep);
  INFO(after.output);
  CHECK_THAT(after.output, Contains("): 4 runs: 4 complete, 0 running, 0 pending"));
  // Without the sweep's arguments: the spec's own grid (seeds 0 and 1, never trained) and the sweep's runs named.
  const test::Result plain = test::run_repro("status " + spec_file + " --out " + runs);
  INFO(plain.output);
  CHECK_THAT(plain.output, Contains("): 4 runs: 0 complete") &&
                               Contains("and 4 more run(s) of these rows in its plan.json (a sweep or other seeds"));
  // The folder, narrowed like a run: one row's two runs.
  const test::Result one_row = test::run_repro("status " + runs + " --rows vit");
  INFO(one_row.output);
  CHECK_THAT(one_row.output, Contains("): 2 runs: 2 complete"));
  CHECK(test::run_repro("status " + runs + " --set train.lr=1").exit_code != 0);
}

TEST_CASE("repro run --index trains one run of the plan and prints no table; a position outside the plan is an error",
          "[cli]") {
  test::TempDir dir("parallel-index");
  const std::string spec = write_grid_spec(dir);
  const std::string out = " --threads 1 --out " + (dir.path() / "runs").string();
  const test::Result one = test::run_repro("run " + spec + out + " --index 2");
  INFO(one.output);
  CHECK(one.exit_code == 0);
  CHECK_THAT(one.output, !Contains("| model |"));
  const auto runs = dir.path() / "runs/grid/fashion_mnist";
  CHECK_THAT(read_file(runs / "vit-mlp4/seed_0/summary.json"), Contains("\"status\": \"complete\""));
  CHECK_FALSE(std::filesystem::exists(runs / "vit/seed_0"));
  CHECK_FALSE(std::filesystem::exists(runs / "vit-mlp4/seed_1"));
  // The plan lists the whole grid, so that report and status show the three runs not started as pending.
  CHECK(read_plan_record(dir.path() / "runs/grid/plan.json").runs.size() == 4);
  CHECK_THAT(test::run_repro("status " + (dir.path() / "runs").string()).output, Contains("4 runs: 1 complete"));
  const test::Result again = test::run_repro("run " + spec + out + " --index 2");
  CHECK(again.exit_code == 0);
  CHECK_THAT(again.output, Contains("1 of 1 runs were already finished"));
  const test::Result outside = test::run_repro("run " + spec + out + " --index 4");
  CHECK(outside.exit_code == 2);
  CHECK_THAT(outside.output, Contains("--index 4: the plan of grid has 4 runs (positions 0-3)"));
  const test::Result cpu_devices = test::run_repro("run " + spec + out + " --jobs 2 --devices 0 --device cpu");
  CHECK(cpu_devices.exit_code == 2);
  CHECK_THAT(cpu_devices.output, Contains("--devices 0: not with --device cpu"));
  const test::Result bad_devices = test::run_repro("run " + spec + out + " --jobs 2 --devices 0,0 --device cuda");
  CHECK(bad_devices.exit_code == 2);
  CHECK_THAT(bad_devices.output, Contains("--devices 0,0"));  // repeated, or no CUDA device here
}

TEST_CASE("repro run --jobs 2 skips a run another process holds and trains the rest", "[cli]") {
  test::TempDir dir("parallel-held");
  const std::string spec = write_grid_spec(dir);
  const auto runs = dir.path() / "runs";
  const auto held = runs / "grid/fashion_mnist/vit/seed_1";
  const auto lock = RunLock::try_acquire(held);  // this test process plays the other repro
  REQUIRE(lock.has_value());
  const test::Result result = test::run_repro("run " + spec + " --jobs 2 --out " + runs.string());
  INFO(result.output);
  CHECK(result.exit_code == 0);
  CHECK_THAT(result.output, Contains("run 2/4 (vit on fashion_mnist, seed 1): " + held.string() + " is held by") &&
                                Contains("1 of 4 runs are being trained by other processes"));
  CHECK_FALSE(std::filesystem::exists(held / "log.txt"));  // no child was started for it
  for (const char* run : {"vit/seed_0", "vit-mlp4/seed_0", "vit-mlp4/seed_1"})
    CHECK_THAT(read_file(runs / "grid/fashion_mnist" / run / "summary.json"), Contains("\"status\": \"complete\""));
}

namespace {

// The parent of a live process, from /proc/PID/stat ("pid (name) state ppid ..."); 0 when it has ended.
pid_t parent_of(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  if (close == std::string::npos) return 0;
  char state = 0;
  int ppid = 0;
  return std::sscanf(text.c_str() + close + 1, " %c %d", &state, &ppid) == 2 ? ppid : 0;
}

}  // namespace

TEST_CASE("SIGTERM to a repro run --jobs 2 reaches its children; the next invocation finishes the grid", "[cli]") {
  test::TempDir dir("parallel-term");
  test::write_fashion_fixture(dir.path() / "data", 400, 100);
  const auto spec = dir.path() / "term.yaml";
  test::write_text(spec,  // 2 runs of 30 short epochs: long enough to be signalled mid-run
                   "experiment: term\ndatasets: [fashion_mnist]\nseeds: [0, 1]\n"
                   "model: {dim: 16, depth: 1, heads: 2, patch: 7}\n"
                   "data: {val_fraction: 0.125, verify: off}\n"
                   "train: {epochs: 30, batch_size: 64, eval_batch_size: 128}\n");
  const auto runs = dir.path() / "runs";
  const std::string arguments =
      "run " + spec.string() + " --data-root " + (dir.path() / "data").string() + " --jobs 2 --out " + runs.string();
  FILE* pipe = ::popen((std::string(REPRO_BINARY) + " " + arguments + " 2>&1").c_str(), "r");
  REQUIRE(pipe != nullptr);
  // Wait until the first run's child holds its lock and has finished an epoch, then signal the parent.
  const auto first = runs / "term/fashion_mnist/model/seed_0";
  pid_t parent = 0;
  for (int tries = 0; tries < 1200 && parent == 0; ++tries) {  // at most about 60 s
    const auto holder = RunLock::holder(first);
    if (holder && std::filesystem::exists(first / "metrics.csv")) parent = parent_of(static_cast<pid_t>(holder->pid));
    if (parent == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  REQUIRE(parent > 0);
  ::kill(parent, SIGTERM);
  std::string output;
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int status = ::pclose(pipe);
  INFO(output);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 128 + SIGTERM);
  CHECK_THAT(output, Contains("SIGTERM passed to 2 running run(s)") && Contains("stopped in") &&
                         !Contains("| model |"));  // no table after a signal
  CHECK_FALSE(std::filesystem::exists(first / "summary.json"));
  const test::Result resumed = test::run_repro(arguments);
  INFO(resumed.output);
  CHECK(resumed.exit_code == 0);
  for (const char* seed : {"seed_0", "seed_1"}) {
    const auto run = runs / "term/fashion_mnist/model" / seed;
    if (std::string(seed) == "seed_0") CHECK_THAT(read_file(run / "log.txt"), Contains("resuming"));
    CHECK(split_lines(read_file(run / "metrics.csv")).size() == 31);  // header + 30 epochs
    CHECK_THAT(read_file(run / "summary.json"), Contains("\"status\": \"complete\""));
  }
}

TEST_CASE("a status line's detail: its first line, at most 160 characters, never cut inside a character", "[spec]") {
  CHECK(short_detail("held by host:1 since now") == "held by host:1 since now");
  CHECK(short_detail("first line\nsecond line") == "first line …");
  CHECK(short_detail(std::string(300, 'x')) == std::string(160, 'x') + " …");
  const std::string times = std::string(159, 'a') + "\u00d7b";  // "×" is two bytes: bytes 159 and 160
  CHECK(short_detail(times) == std::string(159, 'a') + " …");
}
