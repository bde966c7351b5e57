// Faults: write errors (file-size limit = a full disk, a folder that is a file,
// a read-only folder), checkpoints that do not fit or do not load, the wall time
// of a resumed run, and every state a kill can leave between the checkpoint,
// metrics.csv and summary.json, which the next run must repair to the records
// of an undisturbed run.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "catch.h"
#include "fault_injector.h"
#include "fixtures.h"
#include "record/folder.h"
#include "run/runner.h"
#include "run_repro.h"
#include "spec/experiment.h"
#include "train/checkpoint.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

using namespace repro;
using repro::test::Contains;
namespace fs = std::filesystem;

namespace {

// While alive, files may grow to `bytes` only and SIGXFSZ is ignored, so a
// larger write fails with EFBIG as on a full disk. Assert after it is gone.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    previous_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, previous_handler_);
  }

 private:
  rlimit saved_{};
  void (*previous_handler_)(int) = nullptr;
};

// The message of the repro::Error `write` throws ("" if none).
template <typename Write>
std::string error_of(Write write) {
  try {
    write();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::vector<std::string> temp_files_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename().string().find(".tmp-") != std::string::npos)
      names.push_back(entry.path().filename().string());
  return names;
}

// A pid no process has: a child that has exited and been reaped.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

const char* kFaultsSpec = R"(experiment: faults
datasets: [fashion_mnist]
seeds: [5]
model: {dim: 16, depth: 1, heads: 2, patch: 7, dropout: 0.1, ffn: {ratio: 2}}
data: {val_fraction: 0.25, verify: off}
train: {epochs: 3, batch_size: 16, lr: 3e-3, warmup_steps: 2}
)";

fs::path faults_run(const test::TempDir& dir, const std::string& out) {
  return dir.path() / out / "faults/fashion_mnist/model/seed_5";
}

// The first `epochs` epochs of a metrics.csv (a kill before its next rewrite).
void keep_epochs(const fs::path& path, size_t epochs) {
  const auto lines = split_lines(read_file(path));
  std::string out;
  for (size_t i = 0; i <= epochs && i < lines.size(); ++i) out += lines[i] + "\n";
  write_file_atomic(path, out);
}

double seconds_sum(const fs::path& metrics) {
  double sum = 0;
  for (const auto& row : parse_metrics_csv(read_file(metrics), metrics)) sum += row.seconds;
  return sum;
}

// The records of `folder` equal those of an undisturbed run, and agree with each other.
void check_same_records(const fs::path& folder, const fs::path& undisturbed) {
  test::check_resumed_records(folder, undisturbed);
  const auto summary = nlohmann::json::parse(read_file(folder / "summary.json"));
  CHECK(summary["wall_seconds"].get<double>() == Approx(seconds_sum(folder / "metrics.csv")).epsilon(1e-6));
  CHECK(temp_files_in(folder).empty());
}

}  // namespace

TEST_CASE("a write over a file-size limit is one error naming the file and the OS reason; nothing half-written",
          "[train]") {
  test::TempDir dir("faults-efbig");
  const fs::path path = dir.path() / "out/summary.json";
  write_file_atomic(path, "old contents\n");
  std::string message, append_message;
  {
    FileSizeLimit limit(4096);
    message = error_of([&] { write_file_atomic(path, std::string(64 * 1024, 'x')); });
    append_message = error_of([&] { append_file(dir.path() / "out/log.txt", std::string(64 * 1024, 'y')); });
  }
  CHECK_THAT(message, Contains("cannot write " + path.string()) && Contains("File too large"));
  CHECK_THAT(append_message, Contains("log.txt") && Contains("File too large"));
  CHECK(read_file(path) == "old contents\n");  // the previous version survives
  CHECK(temp_files_in(dir.path() / "out").empty());
}

TEST_CASE("a write below a regular file or into a read-only folder names the path and the reason", "[train]") {
  test::TempDir dir("faults-folder");
  write_file_atomic(dir.path() / "plain", "a file, not a folder\n");
  CHECK_THAT(error_of([&] { write_file_atomic(dir.path() / "plain/runs/plan.json", "{}"); }),
             Contains("cannot write " + (dir.path() / "plain/runs/plan.json").string()) && Contains("Not a directory"));
  fs::create_directories(dir.path() / "readonly");
  fs::permissions(dir.path() / "readonly", fs::perms::owner_read | fs::perms::owner_exec);
  if (::geteuid() == 0) {
    WARN("SKIPPED: read-only folder check: running as root, which permission bits do not stop");
  } else {
    CHECK_THAT(error_of([&] { write_file_atomic(dir.path() / "readonly/table.md", "x"); }),
               Contains("readonly/table.md") && Contains("Permission denied"));
  }
  fs::permissions(dir.path() / "readonly", fs::perms::owner_all);
}

TEST_CASE("checkpoints: each value read back as written; a history that disagrees or a full disk is an error",
          "[train]") {
  test::TempDir dir("faults-checkpoint");
  const fs::path path = dir.path() / "checkpoint.pt";
  torch::nn::Linear model(3, 2);
  torch::optim::AdamW optimizer(model->parameters());
  TrainState state;
  state.epochs_done = 2;
  state.step = 17;
  state.wall_seconds = 12.5;
  std::vector<EpochRow> history(2);
  history[0].epoch = 1, history[0].seconds = 5.0;
  history[1].epoch = 2, history[1].seconds = 7.5;
  state.history_json = history_to_json(history).dump();
  save_checkpoint(path, *model, optimizer, state);

  torch::nn::Linear restored_model(3, 2);
  torch::optim::AdamW restored_optimizer(restored_model->parameters());
  const TrainState restored = load_checkpoint(path, *restored_model, restored_optimizer);
  CHECK(restored.epochs_done == 2);
  CHECK(restored.step == 17);
  CHECK(restored.wall_seconds == 12.5);  // was 4.65e18: read into the step's int64 tensor
  CHECK(torch::equal(restored_model->weight, model->weight));

  std::string full_disk;
  {
    FileSizeLimit limit(512);
    full_disk = error_of([&] { save_checkpoint(path, *model, optimizer, state); });
  }
  CHECK_THAT(full_disk, Contains("cannot write " + path.string()) && Contains("File too large"));
  CHECK(temp_files_in(dir.path()).empty());
  CHECK(load_checkpoint(path, *restored_model, restored_optimizer).step == 17);  // the old one is intact

  state.epochs_done = 3;  // but two rows of history
  save_checkpoint(path, *model, optimizer, state);
  CHECK_THAT(error_of([&] { load_checkpoint(path, *restored_model, restored_optimizer); }),
             Contains(path.string()) && Contains("unreadable checkpoint") && Contains("holds 2 epochs") &&
                 Contains("delete it"));
}

TEST_CASE("stale temporary files of dead writers are swept; those of live processes are kept", "[train]") {
  test::TempDir dir("faults-sweep");
  const std::string dead = std::to_string(dead_pid()), self = std::to_string(::getpid());
  for (const std::string& name : std::vector<std::string>{"summary.json.tmp-" + dead, "checkpoint.pt.tmp-" + self,
                                                          "metrics.csv.tmp-1", "notes.tmp-x", "summary.json"})
    write_file_atomic(dir.path() / name, "x");
  CHECK(sweep_stale_temp_files(dir.path()) == 2);
  CHECK_FALSE(fs::exists(dir.path() / ("summary.json.tmp-" + dead)));
  CHECK_FALSE(fs::exists(dir.path() / ("checkpoint.pt.tmp-" + self)));
  CHECK(fs::exists(dir.path() / "metrics.csv.tmp-1"));  // pid 1 is alive
  CHECK(fs::exists(dir.path() / "notes.tmp-x"));
  CHECK(fs::exists(dir.path() / "summary.json"));
  CHECK(sweep_stale_temp_files(dir.path() / "absent") == 0);
}

TEST_CASE("every state a kill can leave is repaired by the next run to the records of an undisturbed run", "[train]") {
  test::TempDir dir("faults-kills");
  test::write_fashion_fixture(dir.path() / "data", 96, 32);
  test::write_text(dir.path() / "faults.yaml", kFaultsSpec);
  const Experiment experiment = load_experiment((dir.path() / "faults.yaml").string());
  REQUIRE(run_experiment(experiment, test::runner_options(dir, "calm")) == 0);
  const fs::path calm = faults_run(dir, "calm");
  CHECK(nlohmann::json::parse(read_file(calm / "summary.json"))["wall_seconds"].get<double>() ==
        Approx(seconds_sum(calm / "metrics.csv")).epsilon(1e-6));

  // Killed after the final checkpoint, before metrics.csv (was: metrics.csv one epoch short for good),
  // with a half-written summary.json of the killed process beside.
  const test::FaultInjector after_3 = test::stop_after(3), after_2 = test::stop_after(2), after_1 = test::stop_after(1);
  REQUIRE(run_experiment(experiment, test::runner_options(dir, "final", &after_3)) == 3);
  const fs::path final_kill = faults_run(dir, "final");
  REQUIRE(fs::exists(final_kill / "checkpoint.pt"));
  REQUIRE_FALSE(fs::exists(final_kill / "summary.json"));
  keep_epochs(final_kill / "metrics.csv", 2);
  write_file_atomic(final_kill / ("summary.json.tmp-" + std::to_string(dead_pid())), "{\"status\": \"comp");
  REQUIRE(run_experiment(experiment, test::runner_options(dir, "final")) == 0);
  check_same_records(final_kill, calm);

  // Killed between epoch 2's checkpoint and its metrics.csv, a half-written checkpoint beside.
  REQUIRE(run_experiment(experiment, test::runner_options(dir, "middle", &after_2)) == 3);
  const fs::path middle_kill = faults_run(dir, "middle");
  keep_epochs(middle_kill / "metrics.csv", 1);
  write_file_atomic(middle_kill / ("checkpoint.pt.tmp-" + std::to_string(dead_pid())), "PK half a zip");
  REQUIRE(run_experiment(experiment, test::runner_options(dir, "middle")) == 0);
  check_same_records(middle_kill, calm);
  CHECK(nlohmann::json::parse(read_file(middle_kill / "summary.json"))["resumed_from_epoch"] == 2);

  // metrics.csv ahead of the checkpoint (what the other write order would leave).
  REQUIRE(run_experiment(experiment, test::runner_options(dir, "ahead", &after_1)) == 3);
  const fs::path ahead = faults_run(dir, "ahead");
  append_file(ahead / "metrics.csv", "2,99,0.001,9,9,9,9,9,9,1\n");
  REQUIRE(run_experiment(experiment, test::runner_options(dir, "ahead")) == 0);
  check_same_records(ahead, calm);

  // A stale metrics.csv beside no checkpoint (killed in epoch 1 after its checkpoint was deleted).
  const fs::path stale = faults_run(dir, "stale");
  write_file_atomic(stale / "metrics.csv", read_file(calm / "metrics.csv") + "4,99,0.001,9,9,9,9,9,9,1\n");
  REQUIRE(run_experiment(experiment, test::runner_options(dir, "stale")) == 0);
  check_same_records(stale, calm);
}

TEST_CASE("log.txt is flushed per line: a SIGKILL loses no logged epoch", "[train]") {
  test::TempDir dir("faults-log");
  test::write_fashion_fixture(dir.path() / "data", 400, 100);
  const std::string spec = std::string(REPRO_SOURCE_DIR) + "/experiments/smoke.yaml";
  // 350 training images at batch 64: 6 steps per epoch; step 9 is mid-epoch 2.
  const auto [exit_code, output] = test::run_repro_faults(
      "run " + spec + " train.epochs=2 data.train_limit=0 data.test_limit=0 data.verify=off" + " --data-root " +
      (dir.path() / "data").string() + " --out " + (dir.path() / "runs").string() + " --kill-at-step 9");
  INFO(output);
  CHECK(exit_code == 128 + SIGKILL);
  const std::string log = read_file(dir.path() / "runs/smoke/fashion_mnist/vit/seed_0/log.txt");
  CHECK_THAT(log, Contains("epoch 1/2"));
}
