// steps.csv (train.log_every): its rows, what they hold, and that a kill leaves no
// duplicated or missing step: the next run rewrites the file from the checkpoint's rows,
// and the losses of a resumed run's rows equal an undisturbed run's (the checkpoint keeps
// the partial window). The TensorBoard event file (train.tensorboard) holds the same
// numbers, decoded by an independent reader (tests/tools/read_events.py: Python's protobuf
// with src/run/tensorboard.proto, CRC-32C computed bit by bit), across a kill too.
#include <signal.h>

#include "catch.h"
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include "fixtures.h"
#include "run_repro.h"
#include "train/history.h"
#include "run/event_file.h"
#include "train/step_log.h"
#include "util/error.h"
#include "util/files.h"

using namespace repro;
using repro::test::Contains;
namespace fs = std::filesystem;

namespace {

// 96 training images, a quarter for validation: 72 at batch 16 = 5 steps an epoch (16, 16, 16, 16, 8).
const char* kStepsSpec = R"(experiment: steps
datasets: [fashion_mnist]
seeds: [2]
model: {dim: 16, depth: 1, heads: 2, patch: 7, dropout: 0.1, ffn: {ratio: 2}}
data: {val_fraction: 0.25, verify: off}
train: {epochs: 3, batch_size: 16, lr: 3e-3, warmup_steps: 2, clip_norm: 0.5}
)";

struct StepsSetup {
  test::TempDir dir;
  explicit StepsSetup(const std::string& name) : dir(name) {
    test::write_fashion_fixture(dir.path() / "data", 96, 32);
    test::write_text(dir.path() / "steps.yaml", kStepsSpec);
  }
  // `repro run` of the spec into OUT with extra arguments.
  test::Result run(const std::string& out, const std::string& extra = "") const {
    return test::run_repro(run_arguments(out, extra));
  }
  // The same with repro-faults, for the hidden fault options in `extra` (tests/fault_injector.h).
  test::Result run_faulty(const std::string& out, const std::string& extra) const {
    return test::run_repro_faults(run_arguments(out, extra));
  }
  std::string run_arguments(const std::string& out, const std::string& extra) const {
    return "run " + (dir.path() / "steps.yaml").string() + " --data-root " + (dir.path() / "data").string() +
           " --out " + (dir.path() / out).string() + " --threads 1 " + extra;
  }
  fs::path run_dir(const std::string& out) const { return dir.path() / out / "steps/fashion_mnist/model/seed_2"; }
  std::vector<StepRow> steps(const std::string& out) const {
    const fs::path path = run_dir(out) / "steps.csv";
    return parse_steps_csv(read_file(path), path);
  }
};

// What tests/tools/read_events.py decodes from an event file: scalars by tag, then step.
struct Decoded {
  std::string version;
  std::map<std::string, std::vector<std::pair<int64_t, double>>> scalars;  // tag -> (step, value) in file order
  std::vector<std::string> texts;                                           // "TAG STEP PLUGIN"
};

Decoded decode_events(const fs::path& events, const fs::path& work) {
  const fs::path source = fs::path(REPRO_SOURCE_DIR);
  fs::create_directories(work);
  const auto protoc = test::run_command("protoc --python_out=" + work.string() + " -I " +
                                        (source / "src/run").string() + " " +
                                        (source / "src/run/tensorboard.proto").string());
  INFO(protoc.output);
  REQUIRE(protoc.exit_code == 0);
  const auto read = test::run_command("/usr/bin/python3 " + (source / "tests/tools/read_events.py").string() + " " +
                                      work.string() + " " + events.string());
  INFO(read.output);
  REQUIRE(read.exit_code == 0);
  Decoded out;
  std::istringstream lines(read.output);
  std::string kind;
  while (lines >> kind) {
    if (kind == "version") {
      lines >> out.version;
    } else if (kind == "scalar") {
      std::string tag;
      int64_t step = 0;
      double value = 0, wall_time = 0;
      lines >> tag >> step >> value >> wall_time;
      out.scalars[tag].emplace_back(step, value);
    } else {
      REQUIRE(kind == "text");
      std::string tag, step, plugin, length;
      lines >> tag >> step >> plugin >> length;
      out.texts.push_back(tag + " " + step + " " + plugin);
    }
  }
  return out;
}

// The event file holds what steps.csv and metrics.csv hold, each step once: as float32 (TensorBoard's scalar type)
// of the CSV's printed digits, so within float32's relative precision (2^-23 = 1.2e-7, doubled for the CSV).
void check_events_match(const Decoded& events, const std::vector<StepRow>& steps, const std::vector<EpochRow>& epochs) {
  CHECK(events.version == "brain.Event:2");
  CHECK(events.texts == std::vector<std::string>{"spec 0 text"});
  const auto series = [&](const std::string& tag) {
    const auto it = events.scalars.find(tag);
    return it == events.scalars.end() ? std::vector<std::pair<int64_t, double>>{} : it->second;
  };
  const auto expect = [&](const std::string& tag, const auto& rows, auto value_of) {
    INFO(tag);
    const auto got = series(tag);
    REQUIRE(got.size() == rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      CHECK(got[i].first == rows[i].step);
      const double want = value_of(rows[i]);
      CHECK(std::abs(got[i].second - want) <= 2.5e-7 * std::max(1e-30, std::abs(want)));
    }
  };
  expect("train/loss", steps, [](const StepRow& r) { return r.loss; });
  expect("train/lr", steps, [](const StepRow& r) { return r.lr; });
  expect("train/grad_norm", steps, [](const StepRow& r) { return r.grad_norm; });
  expect("train/examples_per_s", steps, [](const StepRow& r) { return r.examples_per_s; });
  expect("val/acc", epochs, [](const EpochRow& r) { return r.val_acc; });
  expect("val/loss", epochs, [](const EpochRow& r) { return r.val_loss; });
  expect("test/acc", epochs, [](const EpochRow& r) { return r.test_acc; });
  expect("test/loss", epochs, [](const EpochRow& r) { return r.test_loss; });
  expect("train/epoch_loss", epochs, [](const EpochRow& r) { return r.train_loss; });
  expect("train/epoch_acc", epochs, [](const EpochRow& r) { return r.train_acc; });
  CHECK(events.scalars.count("cuda/memory_mb") == 0);  // the CPU
  CHECK(events.scalars.size() == 10);
}

// The columns that do not depend on time: step, epoch, loss, lr, grad_norm.
std::vector<std::vector<double>> timeless(const std::vector<StepRow>& rows) {
  std::vector<std::vector<double>> out;
  for (const auto& r : rows)
    out.push_back({static_cast<double>(r.step), static_cast<double>(r.epoch), r.loss, r.lr, r.grad_norm});
  return out;
}

}  // namespace

TEST_CASE("steps.csv: a row every train.log_every steps; a window of one epoch is the epoch's training loss",
          "[train]") {
  StepsSetup s("steps-rows");
  // log_every = the steps of an epoch: each row's window is one epoch.
  const auto result = s.run("runs", "train.log_every=5");
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  const auto rows = s.steps("runs");
  const fs::path metrics_path = s.run_dir("runs") / "metrics.csv";
  const auto epochs = parse_metrics_csv(read_file(metrics_path), metrics_path);
  REQUIRE(rows.size() == 3);
  REQUIRE(epochs.size() == 3);
  for (size_t i = 0; i < rows.size(); ++i) {
    INFO("row " << i);
    CHECK(rows[i].step == 5 * static_cast<int64_t>(i + 1));
    CHECK(rows[i].epoch == static_cast<int64_t>(i + 1));
    CHECK(rows[i].step == epochs[i].step);
    CHECK(rows[i].loss == Approx(epochs[i].train_loss).epsilon(1e-6));
    CHECK(rows[i].lr == Approx(epochs[i].lr).epsilon(1e-7));
    CHECK(rows[i].grad_norm > 0);  // measured before clipping (clip_norm 0.5)
    CHECK(std::isfinite(rows[i].grad_norm));
    CHECK(rows[i].examples_per_s > 0);
    CHECK(std::isnan(rows[i].cuda_memory_mb));  // the CPU
    CHECK(rows[i].wall_time > 1.7e9);           // Unix seconds
  }
  CHECK(rows[0].wall_time <= rows[2].wall_time);

  // Every 2 steps, without clipping: rows at 2, 4, ..., 14, the gradient norm measured anyway.
  REQUIRE(s.run("every2", "train.log_every=2 train.clip_norm=0").exit_code == 0);
  const auto every2 = s.steps("every2");
  REQUIRE(every2.size() == 7);
  CHECK(every2.front().step == 2);
  CHECK(every2.back().step == 14);
  CHECK(every2[2].epoch == 2);  // step 6 is the first of epoch 2
  for (const auto& row : every2) CHECK(row.grad_norm > 0);

  // 0: no steps.csv.
  REQUIRE(s.run("none", "train.log_every=0").exit_code == 0);
  CHECK_FALSE(fs::exists(s.run_dir("none") / "steps.csv"));
  CHECK(fs::exists(s.run_dir("none") / "metrics.csv"));
}

TEST_CASE("steps.csv after a SIGKILL mid-epoch and a resume: no step duplicated or missing, the same losses",
          "[train]") {
  StepsSetup s("steps-kill");
  REQUIRE(s.run("calm", "train.log_every=2").exit_code == 0);
  const auto calm = s.steps("calm");
  REQUIRE(calm.size() == 7);

  // Killed at step 9 (mid-epoch 2): the checkpoint is epoch 1's (step 5, rows 2 and 4, step 5 in the window).
  const auto killed = s.run_faulty("killed", "train.log_every=2 --kill-at-step 9");
  INFO(killed.output);
  REQUIRE(killed.exit_code == 128 + SIGKILL);
  CHECK(s.steps("killed").size() == 2);
  // A row past the checkpoint, as a writer that outran it would leave: the resume drops it.
  append_file(s.run_dir("killed") / "steps.csv", "8,2,9,9,9,9,,1800000000\n");
  const auto resumed = s.run("killed", "train.log_every=2");
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK(timeless(s.steps("killed")) == timeless(calm));

  // Interrupted mid-epoch (SIGUSR1, a mid-epoch checkpoint) and resumed: the same rows again.
  const auto interrupted = s.run_faulty("interrupted", "train.log_every=2 --interrupt-at-step 7");
  INFO(interrupted.output);
  REQUIRE(interrupted.exit_code != 0);
  CHECK(s.steps("interrupted").size() == 3);  // rows 2, 4, 6 written with the mid-epoch checkpoint
  REQUIRE(s.run("interrupted", "train.log_every=2").exit_code == 0);
  CHECK(timeless(s.steps("interrupted")) == timeless(calm));
}

TEST_CASE("steps.csv that repro cannot read back names the file and the line", "[train]") {
  const fs::path path = "runs/x/steps.csv";
  CHECK_THROWS_WITH(parse_steps_csv("step,epoch\n", path), Contains("steps.csv:1: header 'step,epoch'"));
  const std::string header = "step,epoch,loss,lr,grad_norm,examples_per_s,cuda_memory_mb,wall_time\n";
  CHECK_THROWS_WITH(parse_steps_csv(header + "2,1,0.5,0.001,1,100,,1\n2,1,0.5,0.001,1,100,,1\n", path),
                    Contains("steps.csv:3: step 2 after step 2"));
  CHECK_THROWS_WITH(parse_steps_csv(header + "2,1,abc,0.001,1,100,,1\n", path),
                    Contains("steps.csv:2: column 'loss' holds 'abc', not a number"));
  CHECK_THROWS_WITH(parse_steps_csv(header + "2,1,0.5\n", path), Contains("steps.csv:2: 3 fields, expected 8"));
  CHECK_THROWS_WITH(parse_steps_csv(header + "2,1,0.5,0.001,1,100,,1", path), Contains("truncated line"));
  const auto rows = parse_steps_csv(header + "2,1,0.5,0.001,1,100,,1\n", path);
  REQUIRE(rows.size() == 1);
  CHECK(std::isnan(rows[0].cuda_memory_mb));
  CHECK(steps_csv(rows) == header + "2,1,0.5,0.001,1,100,,1\n");
  CHECK(steps_from_json(steps_to_json(rows))[0].step == 2);
}

TEST_CASE("CRC-32C and TFRecord framing of the event files", "[train]") {
  if (!REPRO_EXPECT_EVENT_FILES) {
    WARN("SKIPPED: configured with -DREPRO_WITH_TENSORBOARD=OFF");
    return;
  }
  REQUIRE(event_files_available());  // a default build must have compiled them in (not the fallback)
  CHECK(crc32c("123456789") == 0xE3069283u);            // the CRC-32C check value
  CHECK(crc32c(std::string(32, '\0')) == 0x8A9136AAu);  // RFC 3720, B.4
  CHECK(crc32c(std::string(32, '\xff')) == 0x62A8AB43u);
  const uint32_t crc = crc32c("abc");
  CHECK(masked_crc32c("abc") == static_cast<uint32_t>(((crc >> 15) | (crc << 17)) + 0xa282ead8u));
  const std::string record = tfrecord("abc");
  REQUIRE(record.size() == 8 + 4 + 3 + 4);
  CHECK(record.substr(0, 8) == std::string("\x03\0\0\0\0\0\0\0", 8));  // the length, little-endian
  CHECK(record.substr(12, 3) == "abc");
}

TEST_CASE("the TensorBoard event file decodes to steps.csv and metrics.csv, also after a SIGKILL and a resume",
          "[train]") {
  if (!REPRO_EXPECT_EVENT_FILES) {
    WARN("SKIPPED: configured with -DREPRO_WITH_TENSORBOARD=OFF");
    return;
  }
  StepsSetup s("events");
  REQUIRE(s.run("calm", "train.log_every=2").exit_code == 0);
  const fs::path calm_metrics = s.run_dir("calm") / "metrics.csv";
  const auto calm_epochs = parse_metrics_csv(read_file(calm_metrics), calm_metrics);
  const Decoded calm = decode_events(s.run_dir("calm") / "events.out.tfevents.repro", s.dir.path() / "pb-calm");
  check_events_match(calm, s.steps("calm"), calm_epochs);

  // Killed at step 9: the rows of steps 6 and 8 were appended live (past epoch 1's checkpoint at step 5).
  REQUIRE(s.run_faulty("killed", "train.log_every=2 --kill-at-step 9").exit_code == 128 + SIGKILL);
  const Decoded live = decode_events(s.run_dir("killed") / "events.out.tfevents.repro", s.dir.path() / "pb-live");
  std::vector<int64_t> live_steps;
  for (const auto& [step, value] : live.scalars.at("train/loss")) live_steps.push_back(step);
  CHECK(live_steps == std::vector<int64_t>{2, 4, 6, 8});
  CHECK(live.scalars.at("val/acc").size() == 1);
  // The resume rewrites the file from the checkpoint: steps 6 and 8 once, with the undisturbed run's numbers.
  REQUIRE(s.run("killed", "train.log_every=2").exit_code == 0);
  const fs::path metrics = s.run_dir("killed") / "metrics.csv";
  const Decoded resumed = decode_events(s.run_dir("killed") / "events.out.tfevents.repro", s.dir.path() / "pb-res");
  check_events_match(resumed, s.steps("killed"), parse_metrics_csv(read_file(metrics), metrics));
  CHECK(resumed.scalars.at("train/loss") == calm.scalars.at("train/loss"));
  CHECK(resumed.scalars.at("val/acc") == calm.scalars.at("val/acc"));

  // A flipped byte is caught by the reader's CRC check (the test's reader is not a rubber stamp).
  const fs::path events = s.run_dir("calm") / "events.out.tfevents.repro";
  std::string bytes = read_file(events);
  bytes[bytes.size() / 2] ^= 0x01;
  write_file_atomic(s.dir.path() / "flipped.tfevents", bytes);
  const auto bad = test::run_command("/usr/bin/python3 " + (fs::path(REPRO_SOURCE_DIR) / "tests/tools/read_events.py").string() +
                                     " " + (s.dir.path() / "pb-calm").string() + " " +
                                     (s.dir.path() / "flipped.tfevents").string());
  CHECK(bad.exit_code == 1);
  CHECK_THAT(bad.output, Contains("error: "));

  // train.tensorboard=false: no event file.
  REQUIRE(s.run("off", "train.tensorboard=false").exit_code == 0);
  CHECK_FALSE(fs::exists(s.run_dir("off") / "events.out.tfevents.repro"));
}
