// repro launch slurm, repro run --manifest, repro status, on a real throw-away SLURM
// (scripts/slurm-up: munged, slurmctld, slurmd under a temporary folder) where the
// packages are installed; the cases that need the cluster say "skipped" otherwise.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <thread>

#include "data/registry.h"
#include "fixtures.h"
#include "run/lock.h"
#include "run/slurm.h"
#include "run_repro.h"
#include "spec/experiment.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

using namespace repro;
using Catch::Matchers::Contains;
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
// about 120 s; not within ~50 ms of the requeue, which revokes the new start's credential).
// Gives up after `limit` seconds (then the job is cancelled and the caller's checks fail).
void wait_for(const std::string& job, int limit = 240) {
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(limit)) {
    const auto queue = shell("squeue -h -j " + job + " -o '%i %T %r'");
    if (queue.exit_code == 0 && trim(queue.output).empty()) return;
    for (const auto& line : split_lines(queue.output)) {
      const auto fields = split(trim(line), ' ');
      if (fields.size() >= 3 && fields[1] == "PENDING" && fields[2] == "BeginTime") {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
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

// metrics.csv without the wall-time column. (Records are compared at equal thread counts: the
// local reference runs with --threads 1, the tasks with --cpus-per-task 1, which repro's thread
// plan follows through $SLURM_CPUS_PER_TASK; LibTorch's sums depend on the thread count.)
std::string metrics_without_seconds(const fs::path& path) {
  std::string out;
  for (const auto& line : split_lines(read_file(path))) out += line.substr(0, line.rfind(',')) + "\n";
  return out;
}

struct Setup {
  test::TempDir dir;
  test::ScopedCache cache;  // the jobs inherit $REPRO_CACHE
  std::string data;
  explicit Setup(const std::string& name) : dir(name) {
    test::write_fashion_fixture(dir.path() / "data", 96, 32);
    data = (dir.path() / "data").string();
  }
  std::string args(const fs::path& spec, const std::string& out) const {
    return spec.string() + " --data-root " + data + " --device cpu --out " + (dir.path() / out).string();
  }
};

}  // namespace

TEST_CASE("launch slurm --dry-run writes the manifest and an sbatch script and submits nothing", "[cli]") {
  Setup s("slurm-dry");
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
  const RunManifest manifest = read_manifest(stamp / "manifest.tsv");
  CHECK(manifest.rows.size() == 5);
  CHECK(manifest.runs_per_task == 2);
  CHECK(manifest.rows[0].run_folder == "dry/fashion_mnist/row0/seed_1");
  const std::string script = read_file(stamp / "submit.sbatch");
  for (const std::string& line : std::vector<std::string>{
           "#SBATCH --array=0-2%2", "#SBATCH --requeue", "#SBATCH --open-mode=append", "#SBATCH --signal=B:USR1@120",
           "#SBATCH --output=" + (stamp / "%A_%a.out").string(), "#SBATCH --partition=gpu", "#SBATCH --time=01:00:00",
           "#SBATCH --cpus-per-task=4", "#SBATCH --gres=gpu:1", "#SBATCH --qos=low", "#SBATCH --mem 4G",
           "exec " + std::string(fs::canonical(REPRO_BINARY)) + " run " + spec.string(),
           " --manifest " + (stamp / "manifest.tsv").string() +
               " --index $SLURM_ARRAY_TASK_ID --requeue-signal USR1"}) {
    INFO(line);
    CHECK_THAT(script, Contains(line));
  }
  // A task of the manifest run by hand: task 1 is rows 2 and 3.
  const auto task = test::run_repro("run " + s.args(spec, "runs") + " --manifest " + (stamp / "manifest.tsv").string() +
                                    " --index 1");
  INFO(task.output);
  CHECK(task.exit_code == 0);
  CHECK(fs::exists(s.dir.path() / "runs" / manifest.rows[2].run_folder / "summary.json"));
  CHECK(fs::exists(s.dir.path() / "runs" / manifest.rows[3].run_folder / "summary.json"));
  CHECK_FALSE(fs::exists(s.dir.path() / "runs" / manifest.rows[1].run_folder / "summary.json"));
  CHECK_THAT(
      test::run_repro("run " + s.args(spec, "runs") + " --manifest " + (stamp / "manifest.tsv").string() + " --index 3")
          .output,
      Contains("--index 3 is past its 3 task(s)"));
  // The spec changed since the launch: a row whose run is gone is refused, naming the manifest row.
  write_spec(s.dir.path(), "dry", 2, "[0]", 1);
  const auto changed = test::run_repro("run " + s.args(spec, "runs") + " --manifest " +
                                       (stamp / "manifest.tsv").string() + " --index 0");
  write_spec(s.dir.path(), "dry", 2, "[0, 1, 2]", 1);
  CHECK(changed.exit_code == 2);
  CHECK_THAT(changed.output, Contains("manifest.tsv: row 0 (dry/fashion_mnist/row0/seed_1) is not a run of the spec"));
  // Everything finished: nothing to launch.
  REQUIRE(test::run_repro("run " + s.args(spec, "runs")).exit_code == 0);
  CHECK_THAT(test::run_repro("launch slurm " + s.args(spec, "runs") + " --dry-run").output,
             Contains("are finished: nothing to launch"));
}

TEST_CASE("manifests: malformed files are refused naming the line; arrays split at MaxArraySize", "[cli]") {
  test::TempDir dir("slurm-manifest");
  const auto path = dir.path() / "manifest.tsv";
  test::write_text(path,
                   "# runs_per_task: 1\nindex\trun_folder\tmodel_config\tdataset\tseed\n0\ta/b/c\tc\tb\t1\n"
                   "2\ta/b/d\td\tb\t1\n");
  CHECK_THROWS_WITH(read_manifest(path), Contains("manifest.tsv:4: index 2 where 1 was expected"));
  test::write_text(path, "index\trun_folder\n");
  CHECK_THROWS_WITH(read_manifest(path), Contains("manifest.tsv:1: expected the header"));
  test::write_text(path, "# runs_per_task: 0\nindex\trun_folder\tmodel_config\tdataset\tseed\n");
  CHECK_THROWS_WITH(read_manifest(path), Contains("manifest.tsv:1: runs_per_task must be at least 1"));
  const auto parts = array_parts(2500, 1001, dir.path());
  REQUIRE(parts.size() == 3);
  CHECK(parts[1].first == 1001);
  CHECK(parts[2].count == 498);
  CHECK(parts[2].script.filename() == "submit.2.sbatch");
  LaunchOptions options;
  options.repro_binary = "/opt/repro";
  options.run_args = {"spec with space.yaml"};
  const std::string script = sbatch_script(options, dir.path() / "manifest.tsv", parts[1], dir.path());
  CHECK_THAT(script, Contains("#SBATCH --array=0-1000\n") && Contains("'spec with space.yaml'") &&
                         Contains("--index $((SLURM_ARRAY_TASK_ID + 1001))"));
}

TEST_CASE("repro status: complete, resumable with its position, running with its holder, pending", "[cli]") {
  Setup s("slurm-status");
  const fs::path spec = write_spec(s.dir.path(), "st", 1, "[0, 1, 2, 3]", 2);
  REQUIRE(test::run_repro("launch slurm " + s.args(spec, "runs") + " --dry-run").exit_code == 0);  // plan.json
  REQUIRE(test::run_repro("run " + s.args(spec, "runs") + " --index 0").exit_code == 0);
  ::unsetenv("SLURM_JOB_ID");
  REQUIRE(test::run_repro("run " + s.args(spec, "runs") + " --index 1 --interrupt-at-step 7").exit_code ==
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
  CHECK_THAT(status.output,
             Contains("running    fashion_mnist/row0/seed_2  held by ") && Contains(":" + std::to_string(::getpid())));
  CHECK_THAT(status.output, Contains("pending    fashion_mnist/row0/seed_3"));
  CHECK_THAT(status.output, !Contains("seed_0"));  // complete runs only with --all
  const auto by_spec =
      test::run_repro("status " + spec.string() + " --out " + (s.dir.path() / "runs").string() + " --all");
  CHECK_THAT(by_spec.output, Contains("complete   fashion_mnist/row0/seed_0"));
  CHECK_THAT(test::run_repro("status " + (s.dir.path() / "nothing").string()).output, Contains("no such folder"));
  test::write_text(s.dir.path() / "runs/st/fashion_mnist/row0/seed_3/summary.json",
                   R"({"status": "diverged", "message": "loss became nan at epoch 1, step 3"})");
  const auto diverged = test::run_repro("status " + (s.dir.path() / "runs").string());
  CHECK_THAT(diverged.output, Contains("1 pending (1 resumable), 0 failed, 1 diverged") &&
                                  Contains("diverged   fashion_mnist/row0/seed_3  loss became nan at epoch 1"));
}

TEST_CASE("launch slurm on a real cluster trains every run; its table equals a local repro run's", "[cli]") {
  REQUIRE_CLUSTER();
  Setup s("slurm-launch");
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
             Contains("4 runs: 4 complete") && Contains("launch slurm/") && Contains("4 runs in 4 array task(s)"));
  const auto summary =
      nlohmann::json::parse(read_file(s.dir.path() / "cluster/launched/fashion_mnist/row1/seed_1/summary.json"));
  CHECK_THAT(summary["environment"]["slurm_job"].get<std::string>(), Contains(jobs[0] + "_"));
}

TEST_CASE("a task that asks SLURM to requeue it mid-epoch resumes to the undisturbed numbers", "[cli]") {
  REQUIRE_CLUSTER();
  Setup s("slurm-self-requeue");
  const fs::path spec = write_spec(s.dir.path(), "requeued", 1, "[4]", 3);
  REQUIRE(test::run_repro("run " + s.args(spec, "local") + " --threads 1").exit_code == 0);
  REQUIRE(test::run_repro("launch slurm " + s.args(spec, "cluster") + " --cpus-per-task 1 --dry-run").exit_code == 0);
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
  CHECK(metrics_without_seconds(s.dir.path() / "cluster" / run / "metrics.csv") ==
        metrics_without_seconds(s.dir.path() / "local" / run / "metrics.csv"));
  const auto summary = nlohmann::json::parse(read_file(s.dir.path() / "cluster" / run / "summary.json"));
  CHECK(summary["status"] == "complete");
  CHECK_THAT(summary["environment"]["slurm_job"].get<std::string>(), Contains("(restart 1)"));
}

TEST_CASE("scontrol requeue and a USR1 to the batch shell mid-run: both tasks resume to the undisturbed numbers",
          "[cli]") {
  REQUIRE_CLUSTER();
  Setup s("slurm-requeue");
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
    CHECK(metrics_without_seconds(runs / seed / "metrics.csv") ==
          metrics_without_seconds(s.dir.path() / "local/signalled/fashion_mnist/row0" / seed / "metrics.csv"));
    CHECK(nlohmann::json::parse(read_file(runs / seed / "summary.json"))["status"] == "complete");
  }
}

TEST_CASE("fake GPUs through gres: each task sees its own CUDA_VISIBLE_DEVICES", "[cli]") {
  REQUIRE_CLUSTER();
  Setup s("slurm-gpus");
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
