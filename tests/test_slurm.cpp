// repro launch slurm, repro run --tasks, repro status, on a real throw-away SLURM
// (scripts/slurm-up: munged, slurmctld, slurmd under a temporary folder) where the
// packages are installed; the cases that need the cluster say "skipped" otherwise.
#include <unistd.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <thread>

#include "catch.h"
#include "data/registry.h"
#include "fixtures.h"
#include "record/task_plan.h"
#include "run/lock.h"
#include "run/slurm.h"
#include "run_repro.h"
#include "spec/experiment.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

using namespace repro;
using repro::test::Contains;
namespace fs = std::filesystem;

namespace {

// A shell command's output (stdout and stderr) and exit code.
test::Result shell(const std::string& command) {
  std::string output;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), output};
}

// One cluster for the whole test binary (2 CPUs, 2 fake GPUs), stopped at exit.
class Cluster {
 public:
  // nullptr, with the reason in `why`, when SLURM is not installed or does not start.
  static Cluster* get(std::string& why) {
    static std::string failure;
    static std::unique_ptr<Cluster> cluster = start(failure);
    why = failure;
    return cluster.get();
  }
  // The controller's log, for failure messages.
  std::string controller_log() const { return read_file(dir_.path() / "log/slurmctld.log"); }
  ~Cluster() { shell(std::string(REPRO_SOURCE_DIR) + "/scripts/slurm-down " + dir_.path().string()); }

 private:
  Cluster() : dir_("slurm-cluster") {}
  static std::unique_ptr<Cluster> start(std::string& failure) {
    if (shell("PATH=$PATH:/usr/sbin command -v slurmctld slurmd munged sbatch scontrol").exit_code != 0) {
      failure = "SLURM is not installed (apt-get install slurmctld slurmd slurm-client munge)";
      return nullptr;
    }
    std::unique_ptr<Cluster> cluster(new Cluster());
    const auto up = shell(std::string(REPRO_SOURCE_DIR) + "/scripts/slurm-up " + cluster->dir_.path().string() +
                          " --gpus 2 --cpus 2 --owner " + std::to_string(::getpid()));
    if (up.exit_code != 0) {
      failure = "scripts/slurm-up failed: " + up.output;
      return nullptr;
    }
    ::setenv("SLURM_CONF", (cluster->dir_.path() / "slurm.conf").c_str(), 1);
    return cluster;
  }
  test::TempDir dir_;
};

#define REQUIRE_CLUSTER()                                                                                          \
  std::string why_skipped;                                                                                         \
  if (!Cluster::get(why_skipped)) {                                                                                \
    WARN("SKIPPED: " << why_skipped);                                                                              \
    std::printf("%s: skipped: %s\n", Catch::getResultCapture().getCurrentTestName().c_str(), why_skipped.c_str()); \
    SUCCEED("skipped: " + why_skipped);                                                                            \
    return;                                                                                                        \
  }

// The job ids printed by `repro launch slurm` ("submitted job N").
std::vector<std::string> submitted_jobs(const std::string& output) {
  std::vector<std::string> jobs;
  const std::regex pattern("submitted job ([0-9]+)");
  for (std::sregex_iterator it(output.begin(), output.end(), pattern), end; it != end; ++it) jobs.push_back((*it)[1]);
  return jobs;
}

// Waits until `job` has left the queue, releasing a requeued task at once (SLURM holds it for
// about 120 s). Not within the second of the requeue: slurmd refuses a credential made in the
// second its job was revoked or before ("Job credential revoked", seen 0.5 s after a requeue).
// Gives up after `limit` seconds (then the job is cancelled and the caller's checks fail).
void wait_for(const std::string& job, int limit = 240) {
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(limit)) {
    const auto queue = shell("squeue -h -j " + job + " -o '%i %T %r'");
    if (queue.exit_code == 0 && trim(queue.output).empty()) return;
    for (const auto& line : split_lines(queue.output)) {
      const auto fields = split(trim(line), ' ');
      if (fields.size() >= 3 && fields[1] == "PENDING" && fields[2] == "BeginTime") {
        std::this_thread::sleep_for(std::chrono::milliseconds(1100));
        shell("scontrol update JobId=" + fields[0] + " StartTime=now");
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  shell("scancel " + job);
  FAIL("job " + job + " still queued after " + std::to_string(limit) + " s");
}

// Waits (at most `limit` seconds) until `path` exists and holds `text`.
bool wait_for_text(const fs::path& path, const std::string& text, int limit = 120) {
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(limit)) {
    if (fs::exists(path) && read_file(path).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

std::string all_outputs(const fs::path& slurm_dir) {
  std::string text;
  for (const auto& stamp : fs::directory_iterator(slurm_dir))
    for (const auto& entry : fs::directory_iterator(stamp.path()))
      if (entry.path().extension() == ".out") text += read_file(entry.path());
  return text;
}

// A tiny spec: `rows` model rows x `seeds`, `epochs` epochs of 5 steps (72 training images).
fs::path write_spec(const fs::path& dir, const std::string& name, int rows, const std::string& seeds, int epochs) {
  std::string text = "experiment: " + name + "\ndatasets: [fashion_mnist]\nseeds: " + seeds +
                     "\nmodel: {dim: 16, depth: 1, heads: 2, patch: 7, dropout: 0.1, ffn: {ratio: 2}}\n"
                     "data: {val_fraction: 0.25, verify: off}\n"
                     "train: {epochs: " +
                     std::to_string(epochs) + ", batch_size: 16, lr: 3e-3, warmup_steps: 2}\nmodels:\n";
  for (int r = 0; r < rows; ++r)
    text += "  - name: row" + std::to_string(r) + "\n    model: {ffn: {ratio: " + std::to_string(r + 2) + "}}\n";
  test::write_text(dir / (name + ".yaml"), text);
  return dir / (name + ".yaml");
}

struct SlurmSetup {
  test::TempDir dir;
  test::ScopedCache cache;  // the jobs inherit $REPRO_CACHE
  std::string data;
  explicit SlurmSetup(const std::string& name) : dir(name) {
    test::write_fashion_fixture(dir.path() / "data", 96, 32);
    data = (dir.path() / "data").string();
  }
  std::string args(const fs::path& spec, const std::string& out) const {
    return spec.string() + " --data-root " + data + " --device cpu --out " + (dir.path() / out).string();
  }
};

}  // namespace

TEST_CASE("launch slurm --dry-run writes tasks.json and an sbatch script and submits nothing", "[cli]") {
  SlurmSetup s("slurm-dry");
  const fs::path spec = write_spec(s.dir.path(), "dry", 2, "[0, 1, 2]", 1);
  REQUIRE(test::run_repro("run " + s.args(spec, "runs") + " --index 0").exit_code == 0);  // one finished already
  const auto launch = test::run_repro("launch slurm " + s.args(spec, "runs") +
                                      " --runs-per-task 2 --array-parallelism 2 --time 01:00:00 --partition gpu "
                                      "--gpus-per-task 1 --cpus-per-task 4 --signal-lead 120 --dry-run -- "
                                      "--qos=low --mem 4G");
  INFO(launch.output);
  REQUIRE(launch.exit_code == 0);
  CHECK_THAT(launch.output, Contains("5 of 6 runs are not finished: 3 array task(s)") && Contains("nothing submitted"));
  CHECK(submitted_jobs(launch.output).empty());
  const fs::path slurm = s.dir.path() / "runs/dry/slurm";
  REQUIRE(fs::is_directory(slurm));
  const fs::path stamp = fs::directory_iterator(slurm)->path();
  const fs::path tasks_path = stamp / "tasks.json";
  const TaskPlan tasks = read_task_plan(tasks_path);
  CHECK(tasks.runs.size() == 5);
  CHECK(tasks.runs_per_task == 2);
  CHECK(tasks.runs[0].dir() == "dry/fashion_mnist/row0/seed_1");
  CHECK(tasks.runs[0].position == 1);
  const std::string script = read_file(stamp / "submit.sbatch");
  for (const std::string& line : std::vector<std::string>{
           "#SBATCH --array=0-2%2", "#SBATCH --requeue", "#SBATCH --open-mode=append", "#SBATCH --signal=B:USR1@120",
           "#SBATCH --output=" + (stamp / "%A_%a.out").string(), "#SBATCH --partition=gpu", "#SBATCH --time=01:00:00",
           "#SBATCH --cpus-per-task=4", "#SBATCH --gres=gpu:1", "#SBATCH --qos=low", "#SBATCH --mem 4G",
           "exec " + std::string(fs::canonical(REPRO_BINARY)) + " run --out " + (s.dir.path() / "runs").string(),
           " --tasks " + tasks_path.string() + " --index $SLURM_ARRAY_TASK_ID --requeue-signal USR1"}) {
    INFO(line);
    CHECK_THAT(script, Contains(line));
  }
  CHECK_THAT(script, !Contains(spec.string()));  // the spec is frozen in tasks.json, not read by the tasks
  // A task run by hand: task 1 is the frozen runs 2 and 3. The spec file may be gone or changed since the launch:
  // the task reads neither the spec nor the grid.
  const std::string spec_text = read_file(spec);
  write_spec(s.dir.path(), "dry", 2, "[0]", 1);
  const std::string task_args = "--out " + (s.dir.path() / "runs").string() + " --data-root " + s.data +
                                " --device cpu --tasks " + tasks_path.string();
  const auto task = test::run_repro("run " + task_args + " --index 1");
  INFO(task.output);
  CHECK(task.exit_code == 0);
  test::write_text(spec, spec_text);
  // `repro status` tells a --dry-run launch from a submitted one (jobs.txt; it listed both alike).
  CHECK_FALSE(fs::exists(stamp / "jobs.txt"));
  CHECK_THAT(test::run_repro("status " + (s.dir.path() / "runs").string()).output,
             Contains("5 runs in 3 array task(s), not submitted (written by --dry-run"));
  CHECK(fs::exists(s.dir.path() / "runs" / tasks.runs[2].dir() / "summary.json"));
  CHECK(fs::exists(s.dir.path() / "runs" / tasks.runs[3].dir() / "summary.json"));
  CHECK_FALSE(fs::exists(s.dir.path() / "runs" / tasks.runs[1].dir() / "summary.json"));
  CHECK_THAT(test::run_repro("run " + task_args + " --index 3").output, Contains("--index 3 is past its 3 task(s)"));
  // Nothing that plans a grid goes with --tasks.
  const auto mixed = test::run_repro("run " + spec.string() + " " + task_args + " --index 0");
  CHECK(mixed.exit_code == 2);
  CHECK_THAT(mixed.output, Contains("not with a spec (" + spec.string() + ")"));
  CHECK_THAT(test::run_repro("run " + task_args).output, Contains("needs --index TASK"));
  // A data root this machine sees without the spec's dataset: warned (the nodes may see another folder), launched.
  test::TempDir empty_root("slurm-empty-root");
  const auto warned = test::run_repro("launch slurm " + spec.string() + " --data-root " + empty_root.path().string() +
                                      " --device cpu --out " + (s.dir.path() / "runs2").string() + " --dry-run");
  INFO(warned.output);
  CHECK(warned.exit_code == 0);
  CHECK_THAT(warned.output, Contains("the tasks will stop before training if the nodes see this folder") &&
                                Contains("fashion_mnist (nothing of it under") && Contains("nothing submitted"));
  // Everything finished: nothing to launch.
  REQUIRE(test::run_repro("run " + s.args(spec, "runs")).exit_code == 0);
  CHECK_THAT(test::run_repro("launch slurm " + s.args(spec, "runs") + " --dry-run").output,
             Contains("are finished: nothing to launch"));
}

TEST_CASE("launch slurm warns of a model whose training state exceeds this machine's memory, as run refuses it",
          "[cli]") {
  SlurmSetup s("slurm-memory");
  const fs::path spec = write_spec(s.dir.path(), "big", 1, "[0]", 1);
  const std::string huge = " model.dim=16384 model.depth=256 model.heads=256";
  const auto run = test::run_repro("run " + s.args(spec, "runs") + huge);
  INFO(run.output);
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.output, Contains("parameters (") && Contains("GiB to train"));
  const auto launch = test::run_repro("launch slurm " + s.args(spec, "runs") + huge + " --dry-run");
  INFO(launch.output);
  CHECK(launch.exit_code == 0);  // the nodes' memory is not this machine's: each task checks its own
  CHECK_THAT(launch.output, Contains("the tasks will stop before training on a node with no more memory than this "
                                     "machine: ") &&
                                Contains("GiB to train") && Contains("nothing submitted"));
}

TEST_CASE("arrays split at MaxArraySize; a damaged tasks.json is refused naming the field", "[cli]") {
  test::TempDir dir("slurm-tasks");
  const auto path = dir.path() / "tasks.json";
  test::write_text(path, R"({"experiment": "e", "profile": "", "spec_file": "s", "runs_per_task": 0, "runs": []})");
  CHECK_THROWS_WITH(read_task_plan(path), Contains("tasks.json: 'runs_per_task' is 0, expected at least 1"));
  test::write_text(path, R"({"experiment": "e", "profile": "", "spec_file": "s", "runs_per_task": 1})");
  CHECK_THROWS_WITH(read_task_plan(path), Contains("tasks.json: lacks 'runs'"));
  const auto parts = array_parts(2500, 1001, dir.path());
  REQUIRE(parts.size() == 3);
  CHECK(parts[1].first == 1001);
  CHECK(parts[2].count == 498);
  CHECK(parts[2].script.filename() == "submit.2.sbatch");
  LaunchOptions options;
  options.repro_binary = "/opt/repro";
  options.run_args = {"spec with space.yaml"};
  const std::string script = sbatch_script(options, dir.path() / "tasks.json", parts[1], dir.path());
  CHECK_THAT(script, Contains("#SBATCH --array=0-1000\n") && Contains("'spec with space.yaml'") &&
                         Contains("--index $((SLURM_ARRAY_TASK_ID + 1001))"));
}

TEST_CASE("repro status: complete, resumable with its position, running with its holder, pending", "[cli]") {
  SlurmSetup s("slurm-status");
  const fs::path spec = write_spec(s.dir.path(), "st", 1, "[0, 1, 2, 3]", 2);
  REQUIRE(test::run_repro("launch slurm " + s.args(spec, "runs") + " --dry-run").exit_code == 0);  // plan.json
  REQUIRE(test::run_repro("run " + s.args(spec, "runs") + " --index 0").exit_code == 0);
  ::unsetenv("SLURM_JOB_ID");
  REQUIRE(test::run_repro_faults("run " + s.args(spec, "runs") + " --index 1 --interrupt-at-step 7").exit_code ==
          128 + SIGUSR1);
  const auto held = RunLock::try_acquire(s.dir.path() / "runs/st/fashion_mnist/row0/seed_2");
  REQUIRE(held);
  const auto status = test::run_repro("status " + (s.dir.path() / "runs").string());
  INFO(status.output);
  CHECK(status.exit_code == 0);
  CHECK_THAT(status.output, Contains("4 runs: 1 complete, 1 running, 2 pending (1 resumable), 0 failed, 0 diverged"));
  CHECK_THAT(status.output,
             Contains("resumable  fashion_mnist/row0/seed_1  checkpoint after epoch 1 and 2 batch(es) of "
                      "epoch 2"));
  CHECK_THAT(status.output, Contains("running    fashion_mnist/row0/seed_2  epoch 1, no step logged yet; held by ") &&
                                Contains(":" + std::to_string(::getpid())));
  CHECK_THAT(status.output, Contains("pending    fashion_mnist/row0/seed_3"));
  CHECK_THAT(status.output, !Contains("seed_0"));  // complete runs only with --all
  const auto by_spec =
      test::run_repro("status " + spec.string() + " --out " + (s.dir.path() / "runs").string() + " --all");
  CHECK_THAT(by_spec.output, Contains("complete   fashion_mnist/row0/seed_0"));
  CHECK_THAT(test::run_repro("status " + (s.dir.path() / "nothing").string()).output, Contains("no such folder"));
  test::write_text(s.dir.path() / "runs/st/fashion_mnist/row0/seed_3/spec.resolved.yaml", "# its settings\n");
  test::write_text(s.dir.path() / "runs/st/fashion_mnist/row0/seed_3/summary.json",
                   R"({"status": "diverged", "message": "loss became nan at epoch 1, step 3", "experiment": "st",)"
                   R"( "model_config": "row0", "dataset": "fashion_mnist", "seed": 3})");
  const auto diverged = test::run_repro("status " + (s.dir.path() / "runs").string());
  CHECK_THAT(diverged.output, Contains("1 pending (1 resumable), 0 failed, 1 diverged") &&
                                  Contains("diverged   fashion_mnist/row0/seed_3  loss became nan at epoch 1"));
}

TEST_CASE("launch slurm on a real cluster trains every run; its table equals a local repro run's", "[cli]") {
  REQUIRE_CLUSTER();
  SlurmSetup s("slurm-launch");
  const fs::path spec = write_spec(s.dir.path(), "launched", 2, "[0, 1]", 2);
  REQUIRE(test::run_repro("run " + s.args(spec, "local") + " --threads 1").exit_code == 0);
  const auto launch = test::run_repro("launch slurm " + s.args(spec, "cluster") + " --cpus-per-task 1");
  INFO(launch.output);
  REQUIRE(launch.exit_code == 0);
  const auto jobs = submitted_jobs(launch.output);
  REQUIRE(jobs.size() == 1);
  CHECK_THAT(launch.output, Contains("squeue -j " + jobs[0]) && Contains("scancel " + jobs[0]));
  wait_for(jobs[0]);
  INFO(all_outputs(s.dir.path() / "cluster/launched/slurm"));
  const auto local = test::run_repro("report " + (s.dir.path() / "local/launched").string());
  const auto cluster = test::run_repro("report " + (s.dir.path() / "cluster/launched").string());
  CHECK(cluster.exit_code == 0);
  CHECK(cluster.output == local.output);
  CHECK_THAT(test::run_repro("status " + (s.dir.path() / "cluster").string()).output,
             Contains("4 runs: 4 complete") && Contains("launch slurm/") &&
                 Contains("4 runs in 4 array task(s), submitted as job " + jobs[0]));
  const auto summary =
      nlohmann::json::parse(read_file(s.dir.path() / "cluster/launched/fashion_mnist/row1/seed_1/summary.json"));
  CHECK_THAT(summary["environment"]["slurm_job"].get<std::string>(), Contains(jobs[0] + "_"));
}

TEST_CASE("a task that asks SLURM to requeue it mid-epoch resumes to the undisturbed numbers", "[cli]") {
  REQUIRE_CLUSTER();
  SlurmSetup s("slurm-self-requeue");
  const fs::path spec = write_spec(s.dir.path(), "requeued", 1, "[4]", 3);
  REQUIRE(test::run_repro("run " + s.args(spec, "local") + " --threads 1").exit_code == 0);
  // Launched by repro-faults, whose script runs repro-faults: it takes the hidden --interrupt-at-step.
  REQUIRE(
      test::run_repro_faults("launch slurm " + s.args(spec, "cluster") + " --cpus-per-task 1 --dry-run").exit_code ==
      0);
  // The kept script, edited as a user may: the task raises the requeue signal at step 7 (epoch 2, batch 2).
  const fs::path slurm = s.dir.path() / "cluster/requeued/slurm";
  const fs::path script = fs::directory_iterator(slurm)->path() / "submit.sbatch";
  std::string text = read_file(script);
  text.insert(text.rfind(" --requeue-signal"), " --interrupt-at-step 7");
  write_file_atomic(script, text);
  const auto submitted = shell("sbatch --parsable " + script.string());
  REQUIRE(submitted.exit_code == 0);
  wait_for(trim(submitted.output));
  const std::string outputs = all_outputs(slurm);
  INFO(outputs);
  CHECK_THAT(outputs, Contains("SIGUSR1 under SLURM: checkpoint written after 7 step(s) this start, requeueing"));
  CHECK_THAT(outputs, Contains("restart 1, on") && Contains("resuming epoch 2 after batch 2"));
  const fs::path run = "requeued/fashion_mnist/row0/seed_4";
  CHECK(test::metrics_without_seconds(s.dir.path() / "cluster" / run / "metrics.csv") ==
        test::metrics_without_seconds(s.dir.path() / "local" / run / "metrics.csv"));
  const auto summary = nlohmann::json::parse(read_file(s.dir.path() / "cluster" / run / "summary.json"));
  CHECK(summary["status"] == "complete");
  CHECK_THAT(summary["environment"]["slurm_job"].get<std::string>(), Contains("(restart 1)"));
}

TEST_CASE("scontrol requeue and a USR1 to the batch shell mid-run: both tasks resume to the undisturbed numbers",
          "[cli]") {
  REQUIRE_CLUSTER();
  SlurmSetup s("slurm-requeue");
  const fs::path spec = write_spec(s.dir.path(), "signalled", 1, "[0, 1]", 60);
  REQUIRE(test::run_repro("run " + s.args(spec, "local") + " --threads 1").exit_code == 0);
  const auto launch = test::run_repro("launch slurm " + s.args(spec, "cluster") + " --cpus-per-task 1");
  INFO(launch.output);
  const auto jobs = submitted_jobs(launch.output);
  REQUIRE(jobs.size() == 1);
  const fs::path runs = s.dir.path() / "cluster/signalled/fashion_mnist/row0";
  // Task 0 trains seed 0, task 1 seed 1 at the same time; both are signalled once their first epochs are logged.
  REQUIRE(wait_for_text(runs / "seed_0/log.txt", "epoch 1/60"));
  REQUIRE(wait_for_text(runs / "seed_1/log.txt", "epoch 1/60"));
  CHECK(shell("scontrol requeue " + jobs[0] + "_0").exit_code == 0);               // SIGTERM to the task, then requeued
  CHECK(shell("scancel --batch --signal=USR1 " + jobs[0] + "_1").exit_code == 0);  // what --signal=B:USR1 sends
  wait_for(jobs[0]);
  const std::string outputs = all_outputs(s.dir.path() / "cluster/signalled/slurm");
  INFO(outputs);
  INFO(Cluster::get(why_skipped)->controller_log());
  CHECK_THAT(outputs, Contains("SIGTERM: checkpoint written, not requeued"));
  CHECK_THAT(outputs, Contains("SIGUSR1 under SLURM: checkpoint written"));
  for (const char* seed : {"seed_0", "seed_1"}) {
    INFO(seed);
    CHECK_THAT(read_file(runs / seed / "log.txt"), Contains("resuming from"));
    CHECK(test::metrics_without_seconds(runs / seed / "metrics.csv") ==
          test::metrics_without_seconds(s.dir.path() / "local/signalled/fashion_mnist/row0" / seed / "metrics.csv"));
    CHECK(nlohmann::json::parse(read_file(runs / seed / "summary.json"))["status"] == "complete");
  }
}

TEST_CASE("fake GPUs through gres: each task sees its own CUDA_VISIBLE_DEVICES", "[cli]") {
  REQUIRE_CLUSTER();
  SlurmSetup s("slurm-gpus");
  const fs::path spec = write_spec(s.dir.path(), "gpus", 1, "[0, 1]", 3);
  const auto launch =
      test::run_repro("launch slurm " + s.args(spec, "cluster") + " --gpus-per-task 1 --cpus-per-task 1");
  INFO(launch.output);
  const auto jobs = submitted_jobs(launch.output);
  REQUIRE(jobs.size() == 1);
  wait_for(jobs[0]);
  std::set<std::string> devices;
  for (const char* seed : {"seed_0", "seed_1"}) {
    const auto summary =
        nlohmann::json::parse(read_file(s.dir.path() / "cluster/gpus/fashion_mnist/row0" / seed / "summary.json"));
    INFO(summary.dump(2));
    REQUIRE(summary["environment"]["cuda_visible_devices"].is_string());
    devices.insert(summary["environment"]["cuda_visible_devices"].get<std::string>());
  }
  CHECK(devices == std::set<std::string>{"0", "1"});  // both tasks ran at once, one fake GPU each
  CHECK_THAT(all_outputs(s.dir.path() / "cluster/gpus/slurm"), Contains("CUDA_VISIBLE_DEVICES=0"));
}

namespace {

// A folder name with what a shell or sbatch would act on: spaces, $(...), backticks, quotes, ';', '#', '%' and
// sbatch's heterogeneous-job separator. Nothing in it may run (INJECTED* would appear in the job's folder).
const std::string kOdd = "odd dir $(touch INJECTED) `touch INJECTED2` 'q' \"dq\" ; # 50% hetjob";
const std::string kOddComment = "a b #c \"d\" 'e' $(touch INJECTED3) hetjob";

// One argument for /bin/sh, written here rather than with the quoting under test: '...' with ' as '"'"'.
std::string sh(const std::string& word) {
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\"'\"'") : std::string(1, c);
  return quoted + "'";
}

// "..." with \" and \\, as sbatch reads a quoted word of an #SBATCH line.
std::string sbatch_quoted(const std::string& word) {
  std::string quoted = "\"";
  for (char c : word) quoted += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  return quoted + "\"";
}

// Everything of a launch under the odd folder: the data, the spec (seeds 0 and 1), the setup file and --out.
struct OddPlace {
  test::TempDir dir;
  test::ScopedCache cache;
  fs::path root, data, spec, setup_file, out;
  explicit OddPlace(const std::string& name) : dir(name) {
    root = dir.path() / kOdd;
    data = root / "data";
    test::write_fashion_fixture(data, 96, 32);
    spec = write_spec(root, "hostile", 1, "[0, 1]", 1);
    setup_file = root / "setup.sh";
    test::write_text(setup_file, "if true; then\n  echo \"setup file\"\nfi\n");
    out = root / "runs";
  }
  // The launch arguments (after `launch slurm`), sh-quoted.
  std::string arguments(const std::string& more) const {
    return sh(spec.string()) + " train.epochs=1 --data-root " + sh(data.string()) + " --device cpu --out " +
           sh(out.string()) + " --setup-file " + sh(setup_file.string()) +
           " --setup 'export REPRO_T=\"a b\"; echo \"setup 1: $REPRO_T\"' --setup 'echo setup 2 # #SBATCH --time=1' " +
           more + " -- --comment=" + sh(kOddComment) + " --chdir=" + sh(root.string()) + " --export ALL";
  }
  bool injected() const {
    for (const char* name : {"INJECTED", "INJECTED2", "INJECTED3"})
      if (fs::exists(root / name) || fs::exists(dir.path() / name) || fs::exists(name)) return true;
    return false;
  }
};

}  // namespace

TEST_CASE("shell_quote and sbatch_quote give back hostile words exactly; messages show control characters", "[cli]") {
  test::TempDir dir("slurm-quote");
  const std::vector<std::string> words = {
      "plain", "",   "a b", "it's", "$(touch INJECTED)", "`touch INJ`", "a;b|c&d", "\"dq\" 'sq'", "back\\", "*",
      "~",     "-n", "50%", "#x",   "\xc3\xa9t\xc3\xa9", "two\nlines",  "$HOME",   "a'\\''b",     "!x",     "x=y"};
  std::string script = "printf '[%s]\\n'", expected;
  for (const auto& word : words) {
    script += " " + shell_quote(word);
    expected += "[" + word + "]\n";
  }
  test::write_text(dir.path() / "words.sh", script + "\n");
  for (const char* shell_name : {"sh", "bash"}) {
    INFO(shell_name << ": " << script);
    const auto run = shell("cd " + dir.path().string() + " && " + shell_name + " words.sh");
    CHECK(run.exit_code == 0);
    CHECK(run.output == expected);
  }
  CHECK_FALSE(fs::exists(dir.path() / "INJECTED"));
  CHECK(shell_quote("/opt/repro-1.2/bin/repro") == "/opt/repro-1.2/bin/repro");  // plain words stay readable

  CHECK(sbatch_quote("--qos=low") == "--qos=low");
  CHECK(sbatch_quote("a b") == "\"a b\"");
  CHECK(sbatch_quote("say \"hi\" \\ #1") == "\"say \\\"hi\\\" \\\\ #1\"");
  CHECK(sbatch_quote("it's") == "\"it's\"");
  CHECK(sbatch_quote("HetJob") == "\"HetJob\"");  // a bare word hetjob splits the job (checked with sbatch 22.05)
  CHECK_THROWS_WITH(sbatch_quote(""), Contains("empty word"));
  CHECK_THROWS_WITH(sbatch_quote("a\nb"), Contains("'a\\nb' contains a newline"));
  CHECK(quoted_for_message(std::string("a\nb\r\t\0\x1b", 7)) == "'a\\nb\\r\\t\\0\\x1b'");

  for (const char* time : {"0", "90", "90:30", "36:00:00", "2-12", "2-12:30", "2-12:30:59", "UNLIMITED", "infinite",
                           "0:59", "100-23:59:59"}) {
    INFO(time);
    CHECK_NOTHROW(check_time_limit(time));
  }
  CHECK_NOTHROW(check_setup_line("module load cuda/12.4 && export X=\"a b\"  # note"));
  CHECK_NOTHROW(check_setup_line("echo a \\\\"));  // an escaped backslash, not a continuation
}

TEST_CASE(
    "launch slurm --dry-run with hostile values: exactly the expected lines, bash -n accepts the script and "
    "its exec line gives repro exactly the arguments",
    "[cli]") {
  OddPlace place("slurm-hostile");
  const auto launch = test::run_repro("launch slurm " + place.arguments("--partition gpu,debug --time 1-12:30 "
                                                                        "--account proj_1 --gpus-per-task 1 "
                                                                        "--cpus-per-task 2 --dry-run"));
  INFO(launch.output);
  REQUIRE(launch.exit_code == 0);
  const fs::path slurm = place.out / "hostile/slurm";
  REQUIRE(fs::is_directory(slurm));
  const fs::path stamp = fs::directory_iterator(slurm)->path();
  const fs::path script = stamp / "submit.sbatch";
  std::string output_pattern;
  for (char c : stamp.string()) output_pattern += c == '%' ? std::string("%%") : std::string(1, c);
  const std::vector<std::string> expected = {
      "#!/bin/bash",
      "#SBATCH --job-name=repro-hostile",
      "#SBATCH --array=0-1",
      "#SBATCH --requeue",
      "#SBATCH --open-mode=append",
      "#SBATCH --signal=B:USR1@300",
      "#SBATCH --output=" + sbatch_quoted(output_pattern + "/%A_%a.out"),
      "#SBATCH --partition=gpu,debug",
      "#SBATCH --time=1-12:30",
      "#SBATCH --account=proj_1",
      "#SBATCH --cpus-per-task=2",
      "#SBATCH --gres=gpu:1",
      "#SBATCH --comment=" + sbatch_quoted(kOddComment),
      "#SBATCH --chdir=" + sbatch_quoted(place.root.string()),
      "#SBATCH --export ALL",
      "",
      "echo \"repro task $SLURM_ARRAY_TASK_ID of job ${SLURM_ARRAY_JOB_ID}, restart ${SLURM_RESTART_COUNT:-0}, on "
      "$(hostname): CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-unset}\"",
      "# setup (--setup-file, --setup), run as written:",
      "if true; then",
      "  echo \"setup file\"",
      "fi",
      "export REPRO_T=\"a b\"; echo \"setup 1: $REPRO_T\"",
      "echo setup 2 # #SBATCH --time=1",
      "# exec: the signal reaches repro, which checkpoints and requeues this task",
  };
  // The two comment lines after #!/bin/bash name the script and tasks.json; the last line is the exec.
  std::vector<std::string> lines = split_lines(read_file(script));
  INFO(read_file(script));
  REQUIRE(lines.size() == expected.size() + 3);
  CHECK(starts_with(lines[1], "# Written by repro launch slurm; edit and resubmit with: sbatch '"));
  CHECK(starts_with(lines[2], "# Array task i runs task i + 0 of "));
  CHECK(starts_with(lines.back(), "exec "));
  const std::string exec_line = lines.back();
  lines.erase(lines.begin() + 1, lines.begin() + 3);
  lines.pop_back();
  CHECK(lines == expected);

  const auto syntax = shell("bash -n " + sh(script.string()));
  CHECK(syntax.exit_code == 0);
  CHECK(syntax.output.empty());
  // The script run with printf in place of exec: the echo, the setup lines in order, then repro's argv.
  std::string text = read_file(script);
  text.replace(text.rfind("\nexec ") + 1, 4, "printf '[%s]\\n'");
  test::write_text(place.dir.path() / "argv.sh", text);
  const auto run = shell("cd " + sh(place.dir.path().string()) +
                         " && SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_JOB_ID=7 CUDA_VISIBLE_DEVICES=3 bash argv.sh");
  INFO(run.output);
  CHECK(run.exit_code == 0);
  std::vector<std::string> argv;
  for (const auto& word :
       {fs::canonical(REPRO_BINARY).string(), std::string("run"), std::string("--out"), place.out.string(),
        std::string("--data-root"), place.data.string(), std::string("--device"), std::string("cpu"),
        std::string("--tasks"), (stamp / "tasks.json").string(), std::string("--index"), std::string("1"),
        std::string("--requeue-signal"), std::string("USR1")})
    argv.push_back("[" + word + "]");
  std::vector<std::string> printed = split_lines(run.output);
  REQUIRE(printed.size() == 4 + argv.size());
  CHECK(starts_with(printed[0], "repro task 1 of job 7, restart 0, on "));
  CHECK_THAT(printed[0], Contains(": CUDA_VISIBLE_DEVICES=3"));
  CHECK(printed[1] == "setup file");
  CHECK(printed[2] == "setup 1: a b");
  CHECK(printed[3] == "setup 2");
  CHECK(std::vector<std::string>(printed.begin() + 4, printed.end()) == argv);
  CHECK_FALSE(place.injected());
  CHECK_THAT(launch.output, Contains("submit with: sbatch '" + script.string().substr(0, 20)));
}

TEST_CASE(
    "launch slurm from an odd folder on a real cluster: the tasks train, logs and records land there, nothing "
    "in the names runs",
    "[cli]") {
  REQUIRE_CLUSTER();
  OddPlace place("slurm-odd");
  // The repro binary itself at an odd path too: the script execs the path of the repro that launched it.
  const fs::path binary = place.root / "repro bin";
  fs::copy_file(REPRO_BINARY, binary);
  fs::permissions(binary, fs::perms::owner_all);
  const auto launch = shell(sh(binary.string()) + " launch slurm " + place.arguments("--cpus-per-task 1"));
  INFO(launch.output);
  REQUIRE(launch.exit_code == 0);
  const auto jobs = submitted_jobs(launch.output);
  REQUIRE(jobs.size() == 1);
  const auto comment = shell("scontrol show job " + jobs[0]);  // before the job leaves the controller's memory
  wait_for(jobs[0]);
  const fs::path slurm = place.out / "hostile/slurm";
  const fs::path stamp = fs::directory_iterator(slurm)->path();
  const std::string outputs = all_outputs(slurm);
  INFO(outputs);
  CHECK(fs::exists(stamp / (jobs[0] + "_0.out")));  // %A_%a replaced, the folder's '%' kept (written %%)
  CHECK(fs::exists(stamp / (jobs[0] + "_1.out")));
  for (const char* seed : {"seed_0", "seed_1"}) {
    INFO(seed);
    const fs::path summary = place.out / "hostile/fashion_mnist/row0" / seed / "summary.json";
    REQUIRE(fs::exists(summary));
    CHECK(nlohmann::json::parse(read_file(summary))["status"] == "complete");
  }
  CHECK_THAT(outputs, Contains("setup file\nsetup 1: a b\nsetup 2\n"));
  CHECK_THAT(comment.output, Contains("Comment=" + kOddComment) && Contains("WorkDir=" + place.root.string()));
  CHECK_FALSE(place.injected());
}
