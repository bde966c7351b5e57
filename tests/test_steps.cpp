// steps.csv (train.log_every): its rows, what they hold, and that a kill leaves no
// duplicated or missing step: the next run rewrites the file from the checkpoint's rows,
// and the losses of a resumed run's rows equal an undisturbed run's (the checkpoint keeps
// the partial window). The TensorBoard event file (train.tensorboard) holds the same
// numbers, decoded by an independent reader (tests/tools/read_events.py: Python's protobuf
// with src/record/tensorboard.proto, CRC-32C computed bit by bit), across a kill too; a
// reader that tails it as TensorBoard does (TailingReader) sees an undisturbed run's values
// across a kill and a resume. The CSV floats bring float32 back bit for bit.
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>

#include "catch.h"
#include "fixtures.h"
#include "record/event_file.h"
#include "run_repro.h"
#include "train/history.h"
#include "train/step.h"
#include "util/csv.h"
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
    return test::parse_steps_csv(read_file(path), path);
  }
  std::vector<EpochRow> epochs(const std::string& out) const {
    const fs::path path = run_dir(out) / "metrics.csv";
    return parse_metrics_csv(read_file(path), path);
  }
  fs::path events(const std::string& out) const { return run_dir(out) / "events.out.tfevents.repro"; }
};

// False (with a warning) in a build configured with -DREPRO_WITH_TENSORBOARD=OFF: the event file tests skip.
bool event_files_built() {
  if (REPRO_EXPECT_EVENT_FILES) return true;
  WARN("SKIPPED: configured with -DREPRO_WITH_TENSORBOARD=OFF");
  return false;
}

using Series = std::map<std::string, std::vector<std::pair<int64_t, double>>>;  // tag -> (step, value)

std::vector<int64_t> steps_of(const Series::mapped_type& series) {
  std::vector<int64_t> steps;
  for (const auto& point : series) steps.push_back(point.first);
  return steps;
}

// Reads an event file as TensorBoard does while a run trains: on from the byte offset it got to, whole records
// only, and purging as plugin_event_accumulator.py does in a file_version 2 file: the first SessionLog START is the
// run's, each later one drops every value of every tag whose step is >= its step (a tag left without values is
// gone). At a torn or damaged record it stops; TensorFlow's reader retries from there at the next poll
// (Reread::Same), TensorBoard's own stub reader (compat/tensorflow_stub) has read past the bytes it could not use
// and goes on from there (Reread::After): bytes changed behind it are never seen. The stub also opens its file by
// name at every read (gfile.py's LocalFileSystem.read): a file removed under it raises NotFoundError, which
// DirectoryWatcher.Load swallows before it looks for a later file, at every poll: it is stuck for good (Poll::Gone).
// TensorFlow's reader keeps its descriptor: a removed file has nothing new for it. Checked with TensorBoard's own
// loaders (docs/reliability.md, "TensorBoard open while repro repairs").
enum class Reread { Same, After };
enum class Poll { Nothing, Read, Gone };

class TailingReader {
 public:
  explicit TailingReader(fs::path path, Reread reread = Reread::Same) : path_(std::move(path)), reread_(reread) {}
  // Reads what is new.
  Poll poll() {
    std::error_code ec;
    if (!fs::is_regular_file(path_, ec)) return reread_ == Reread::After ? Poll::Gone : Poll::Nothing;
    const std::string bytes = read_file(path_);
    int taken = 0;
    for (; const auto data = next_record(bytes, offset_); ++taken) take(decode_event(*data));
    if (reread_ == Reread::After && offset_ < bytes.size()) offset_ = bytes.size();  // read, not usable
    return taken > 0 ? Poll::Read : Poll::Nothing;
  }
  const Series& scalars() const { return scalars_; }  // what TensorBoard shows, tag by tag
  size_t offset() const { return offset_; }
  int starts() const { return starts_; }
  // Goes on with another file as one stream (TensorBoard's directory loader).
  void move_to(fs::path path) { path_ = std::move(path), offset_ = 0; }
  const fs::path& path() const { return path_; }

 private:
  void take(const EventRecord& event) {
    using Kind = EventRecord::Kind;
    if (event.kind == Kind::FileVersion) version_ = event.name;
    if (event.kind == Kind::Scalar) scalars_[event.name].emplace_back(event.step, event.value);
    if (event.kind != Kind::SessionStart || starts_++ == 0 || version_ != "brain.Event:2") return;
    for (auto it = scalars_.begin(); it != scalars_.end();) {
      auto& series = it->second;
      series.erase(std::remove_if(series.begin(), series.end(), [&](const auto& p) { return p.first >= event.step; }),
                   series.end());
      it = series.empty() ? scalars_.erase(it) : std::next(it);
    }
  }
  fs::path path_;
  Reread reread_;
  size_t offset_ = 0;  // where the next read begins
  std::string version_;
  int starts_ = 0;
  Series scalars_;
};

// A run folder's event files as TensorBoard's DirectoryWatcher reads them: the files whose name holds "tfevents",
// in name order, one at a time; when the current one has nothing new and a file of a later name exists, it reads
// the current one a last time and moves on to that one for good. A read that fails (the stub's file gone) ends the
// poll before it looks for a later file.
class FolderReader {
 public:
  explicit FolderReader(fs::path folder, Reread reread = Reread::After)
      : folder_(std::move(folder)), reader_("", reread) {}
  void poll() {
    if (reader_.path().empty()) {
      const auto files = event_files();
      if (files.empty()) return;
      reader_.move_to(files.front());
    }
    for (;;) {
      Poll got = Poll::Read;
      while ((got = reader_.poll()) == Poll::Read) {
      }
      if (got == Poll::Gone) return;
      const auto files = event_files();
      const auto later =
          std::find_if(files.begin(), files.end(), [&](const fs::path& f) { return f > reader_.path(); });
      if (later == files.end()) return;
      if (reader_.poll() == Poll::Gone) return;
      reader_.move_to(*later);
    }
  }
  const Series& scalars() const { return reader_.scalars(); }
  int starts() const { return reader_.starts(); }
  const fs::path& file() const { return reader_.path(); }

 private:
  std::vector<fs::path> event_files() const {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(folder_))
      if (entry.path().filename().string().find("tfevents") != std::string::npos) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
  }
  fs::path folder_;
  TailingReader reader_;
};

// What tests/tools/read_events.py decodes from an event file: scalars by tag, then step.
struct Decoded {
  std::string version;
  std::map<std::string, std::vector<std::pair<int64_t, double>>> scalars;  // tag -> (step, value) in file order
  std::vector<std::string> texts;                                          // "TAG STEP PLUGIN"
  std::vector<int64_t> starts;                                             // SessionLog STARTs' steps
};

Decoded decode_events(const fs::path& events, const fs::path& work) {
  const fs::path source = fs::path(REPRO_SOURCE_DIR);
  fs::create_directories(work);
  const auto protoc =
      test::run_command("protoc --python_out=" + work.string() + " -I " + (source / "src/record").string() + " " +
                        (source / "src/record/tensorboard.proto").string());
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
    } else if (kind == "start") {
      int64_t step = 0;
      lines >> step;
      out.starts.push_back(step);
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

// The event file's scalars (tag -> (step, value) in the order a reader keeps them) are what steps.csv and
// metrics.csv hold, each step once: the float32 (TensorBoard's scalar type) of each CSV field, bit for bit.
void check_events_match(const Series& scalars, const std::vector<StepRow>& steps, const std::vector<EpochRow>& epochs) {
  const auto expect = [&](const std::string& tag, const auto& rows, auto value_of) {
    INFO(tag);
    const auto it = scalars.find(tag);
    REQUIRE(it != scalars.end());
    const auto& got = it->second;
    REQUIRE(got.size() == rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      CHECK(got[i].first == rows[i].step);
      CHECK(got[i].second == static_cast<double>(static_cast<float>(value_of(rows[i]))));
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
  CHECK(scalars.count("cuda/memory_mb") == 0);  // the CPU
  CHECK(scalars.size() == 10);
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
  CHECK_THROWS_WITH(test::parse_steps_csv("step,epoch\n", path), Contains("steps.csv:1: header 'step,epoch'"));
  const std::string header = "step,epoch,loss,lr,grad_norm,examples_per_s,cuda_memory_mb,wall_time\n";
  CHECK_THROWS_WITH(test::parse_steps_csv(header + "2,1,0.5,0.001,1,100,,1\n2,1,0.5,0.001,1,100,,1\n", path),
                    Contains("steps.csv:3: step 2 after step 2"));
  CHECK_THROWS_WITH(test::parse_steps_csv(header + "2,1,abc,0.001,1,100,,1\n", path),
                    Contains("steps.csv:2: column 'loss' holds 'abc', not a number"));
  CHECK_THROWS_WITH(test::parse_steps_csv(header + "2,1,0.5\n", path), Contains("steps.csv:2: 3 fields, expected 8"));
  CHECK_THROWS_WITH(test::parse_steps_csv(header + "2,1,0.5,0.001,1,100,,1", path), Contains("truncated line"));
  const auto rows = test::parse_steps_csv(header + "2,1,0.5,0.001,1,100,,1\n", path);
  REQUIRE(rows.size() == 1);
  CHECK(std::isnan(rows[0].cuda_memory_mb));
  CHECK(steps_csv(rows) == header + "2,1,0.5,0.001,1,100,,1\n");
  CHECK(steps_from_json(steps_to_json(rows))[0].step == 2);
}

TEST_CASE("CRC-32C and TFRecord framing of the event files", "[train]") {
  if (!event_files_built()) return;
  // A default build must have compiled them in (not the fallback).
  REQUIRE(event_files_available());
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
  if (!event_files_built()) return;
  StepsSetup s("events");
  REQUIRE(s.run("calm", "train.log_every=2").exit_code == 0);
  const Decoded calm = decode_events(s.events("calm"), s.dir.path() / "pb-calm");
  CHECK(calm.version == "brain.Event:2");
  CHECK(calm.texts == std::vector<std::string>{"spec 0 text"});
  CHECK(calm.starts == std::vector<int64_t>{0});  // the first session's START
  check_events_match(calm.scalars, s.steps("calm"), s.epochs("calm"));

  // Killed at step 9: the rows of steps 6 and 8 were appended live (past epoch 1's checkpoint at step 5).
  REQUIRE(s.run_faulty("killed", "train.log_every=2 --kill-at-step 9").exit_code == 128 + SIGKILL);
  const Decoded live = decode_events(s.events("killed"), s.dir.path() / "pb-live");
  CHECK(steps_of(live.scalars.at("train/loss")) == std::vector<int64_t>{2, 4, 6, 8});
  CHECK(live.scalars.at("val/acc").size() == 1);
  // The resume appends: the killed session's records stay, then a START at the checkpoint's step 5, then epoch 1's
  // values at step 5 again and steps 6 ... 15 (a reader drops the old ones at 5 or later: the test below).
  REQUIRE(s.run("killed", "train.log_every=2").exit_code == 0);
  const Decoded resumed = decode_events(s.events("killed"), s.dir.path() / "pb-res");
  CHECK(resumed.version == "brain.Event:2");
  CHECK(resumed.texts == std::vector<std::string>{"spec 0 text"});
  CHECK(resumed.starts == std::vector<int64_t>{0, 5});
  CHECK(steps_of(resumed.scalars.at("train/loss")) == std::vector<int64_t>{2, 4, 6, 8, 6, 8, 10, 12, 14});
  CHECK(steps_of(resumed.scalars.at("val/acc")) == std::vector<int64_t>{5, 5, 10, 15});

  // A flipped byte is caught by the reader's CRC check (the test's reader is not a rubber stamp).
  std::string bytes = read_file(s.events("calm"));
  bytes[bytes.size() / 2] ^= 0x01;
  write_file_atomic(s.dir.path() / "flipped.tfevents", bytes);
  const auto bad =
      test::run_command("/usr/bin/python3 " + (fs::path(REPRO_SOURCE_DIR) / "tests/tools/read_events.py").string() +
                        " " + (s.dir.path() / "pb-calm").string() + " " + (s.dir.path() / "flipped.tfevents").string());
  CHECK(bad.exit_code == 1);
  CHECK_THAT(bad.output, Contains("error: "));

  // train.tensorboard=false: no event file.
  REQUIRE(s.run("off", "train.tensorboard=false").exit_code == 0);
  CHECK_FALSE(fs::exists(s.run_dir("off") / "events.out.tfevents.repro"));
}

TEST_CASE(
    "a TensorBoard reader tailing the event files across a SIGKILL or an interrupt and a resume shows an "
    "undisturbed run's values",
    "[train]") {
  if (!event_files_built()) return;
  StepsSetup s("events-tail");
  REQUIRE(s.run("calm", "train.log_every=2").exit_code == 0);
  TailingReader calm(s.events("calm"));
  calm.poll();
  check_events_match(calm.scalars(), s.steps("calm"), s.epochs("calm"));
  // What a reader shows after a resume: the calm run's steps and values (the throughput's values aside: timing),
  // and what the run's own CSV files hold.
  const auto check_as_calm = [&](const Series& shown, const std::string& out) {
    check_events_match(shown, s.steps(out), s.epochs(out));
    for (const auto& [tag, series] : calm.scalars()) {
      INFO(tag);
      REQUIRE(shown.count(tag) == 1);
      if (tag == "train/examples_per_s")
        CHECK(steps_of(shown.at(tag)) == steps_of(series));
      else
        CHECK(shown.at(tag) == series);
    }
  };
  const auto first_file = [&](const std::string& out) { return s.run_dir(out) / "events.out.tfevents.repro"; };
  const auto second_file = [&](const std::string& out) { return s.run_dir(out) / "events.out.tfevents.repro.0002"; };

  SECTION("SIGKILL at step 9, the checkpoint at step 5, a torn record at the end: a new file, which readers take") {
    REQUIRE(s.run_faulty("killed", "train.log_every=2 --kill-at-step 9").exit_code == 128 + SIGKILL);
    append_file(first_file("killed"), tfrecord("a write the kill tore").substr(0, 20));
    // TensorBoard as pip installs it (its stub reader reads past a torn record) and with TensorFlow's reader.
    FolderReader stub(s.run_dir("killed")), tensorflow(s.run_dir("killed"), Reread::Same);
    for (FolderReader* reader : {&stub, &tensorflow}) {
      reader->poll();  // steps 6 and 8, past the checkpoint, then the torn record
      CHECK(steps_of(reader->scalars().at("train/loss")) == std::vector<int64_t>{2, 4, 6, 8});
    }
    const auto resumed = s.run("killed", "train.log_every=2");
    INFO(resumed.output);
    REQUIRE(resumed.exit_code == 0);
    CHECK_THAT(resumed.output, Contains("[warning]") && Contains("a record cut short at byte ") &&
                                   Contains("written anew into events.out.tfevents.repro.0002") &&
                                   Contains("the older file is kept"));
    CHECK(fs::exists(first_file("killed")));  // kept: the stub reader reopens it by name at every poll
    REQUIRE(fs::exists(second_file("killed")));
    for (FolderReader* reader : {&stub, &tensorflow}) {
      reader->poll();  // moves on to the new file; its START at step 0 drops what the old one showed
      CHECK(reader->file() == second_file("killed"));
      check_as_calm(reader->scalars(), "killed");
    }
    FolderReader fresh(s.run_dir("killed"));  // reads both files: the new one's START at 0 replaces the older's
    fresh.poll();
    CHECK(fresh.starts() == 2);  // the older file's, then the new file's
    check_as_calm(fresh.scalars(), "killed");
  }
  SECTION("an interrupt at step 7 (a mid-epoch checkpoint at step 7): the same file, appended to") {
    REQUIRE(s.run_faulty("interrupted", "train.log_every=2 --interrupt-at-step 7").exit_code != 0);
    FolderReader reader(s.run_dir("interrupted"));
    reader.poll();
    CHECK(steps_of(reader.scalars().at("train/loss")) == std::vector<int64_t>{2, 4, 6});
    REQUIRE(s.run("interrupted", "train.log_every=2").exit_code == 0);
    reader.poll();
    CHECK(reader.file() == first_file("interrupted"));
    CHECK(reader.starts() == 2);
    check_as_calm(reader.scalars(), "interrupted");
  }
  SECTION("a fresh start beside a stale event file with a torn end: a new file, the stale one kept") {
    fs::create_directories(s.run_dir("fresh"));
    fs::copy_file(s.events("calm"), s.events("fresh"));
    append_file(s.events("fresh"), tfrecord("torn").substr(0, 5));
    FolderReader reader(s.run_dir("fresh"));  // open before the start, as a TensorBoard would be
    reader.poll();
    REQUIRE(s.run("fresh", "train.log_every=2").exit_code == 0);
    reader.poll();
    CHECK(fs::exists(first_file("fresh")));
    CHECK(reader.file() == second_file("fresh"));
    CHECK(reader.starts() == 2);
    check_as_calm(reader.scalars(), "fresh");
  }
  SECTION("a whole stale file of another run: continued after a START at step 0, its records dropped") {
    fs::create_directories(s.run_dir("stale"));
    {
      EventFile other = EventFile::create(s.events("stale"), 1e9);
      other.text("spec", 0, "```yaml\nanother run's spec\n```\n", 1e9);
      other.scalar("train/loss", 2, 9.5, 1e9 + 1);
      other.scalar("other/tag", 3, 1.0, 1e9 + 2);
    }
    FolderReader reader(s.run_dir("stale"));
    reader.poll();
    REQUIRE(s.run("stale", "train.log_every=2").exit_code == 0);
    reader.poll();
    CHECK(reader.file() == first_file("stale"));  // whole: appended to
    check_as_calm(reader.scalars(), "stale");
  }
}

TEST_CASE(
    "a continued event file: appended to when it ends with whole records, never cut; a torn or damaged tail "
    "is named, the file left as it is",
    "[train]") {
  if (!event_files_built()) return;
  test::TempDir dir("events-cut");
  const fs::path path = dir.path() / "events.out.tfevents.repro";
  {
    EventFile file = EventFile::create(path, 1e9);
    file.scalar("a", 1, 0.5, 1e9);
    file.scalar("a", 2, 0.25, 1e9 + 1);
  }
  const std::string whole = read_file(path);
  std::vector<size_t> ends;  // where each record ends
  for (size_t at = 0; next_record(whole, at);) ends.push_back(at);
  REQUIRE(ends.size() == 4);  // file_version, START at 0, a at 1, a at 2
  REQUIRE(ends.back() == whole.size());
  const std::string last = whole.substr(ends[2]);  // a at 2, 12 bytes of header first
  std::string bad_data = last, bad_length = last;
  bad_data[14] ^= 0x01;
  bad_length[9] ^= 0x01;
  {  // Whole: continued, a START at 2 appended after the bytes as they were.
    EventFileScan scan;
    auto file = EventFile::continue_file(path, scan);
    REQUIRE(file.has_value());
    CHECK(scan.readable == whole.size());
    CHECK(scan.events.size() == 4);
    file->session_start(2, 1e9 + 0.5);  // a session's clock may begin before the file's last event
    file->scalar("a", 2, 0.75, 1e9);    // never before its START
  }
  const std::string after = read_file(path);
  CHECK(after.substr(0, whole.size()) == whole);
  size_t at = whole.size();
  const auto start = next_record(after, at);
  REQUIRE(start);
  CHECK(decode_event(*start).kind == EventRecord::Kind::SessionStart);
  CHECK(decode_event(*start).step == 2);
  CHECK(decode_event(*start).wall_time == 1e9 + 0.5);
  const auto rewritten = next_record(after, at);
  REQUIRE(rewritten);
  CHECK(decode_event(*rewritten).wall_time == 1e9 + 0.5);
  CHECK(at == after.size());
  TailingReader reader(path);
  reader.poll();
  CHECK(reader.scalars().at("a") == Series::mapped_type{{1, 0.5}, {2, 0.75}});  // the old value at 2 dropped
  struct Tail {
    std::string what, bytes;
    bool damaged;
  };
  const std::vector<Tail> tails = {{"a torn header", last.substr(0, 10), false},
                                   {"a torn record", last.substr(0, last.size() - 1), false},
                                   {"a record cut inside its length's CRC", last.substr(0, 13), false},
                                   {"a bad data CRC", bad_data, true},
                                   {"a bad length CRC", bad_length, true},
                                   {"a bad length CRC, then more records", bad_length + last, true}};
  for (const auto& tail : tails) {
    INFO(tail.what);
    write_file_atomic(path, whole + tail.bytes);
    EventFileScan scan;
    CHECK_FALSE(EventFile::continue_file(path, scan).has_value());  // the caller writes a new file
    CHECK(scan.readable == whole.size());
    CHECK(scan.damaged == tail.damaged);
    CHECK(scan.events.size() == 4);
    CHECK(read_file(path) == whole + tail.bytes);  // not a byte changed
  }
  // A file of repro 0.4.0 (no START after the version): continued; the scan says it has none.
  const std::string unstarted = whole.substr(0, ends[0]) + whole.substr(ends[1]);
  write_file_atomic(path, unstarted);
  EventFileScan scan;
  REQUIRE(EventFile::continue_file(path, scan).has_value());
  CHECK(std::none_of(scan.events.begin(), scan.events.end(),
                     [](const EventRecord& e) { return e.kind == EventRecord::Kind::SessionStart; }));
  // Nothing to continue: no file, no file_version record first, not an event file, not a regular file.
  fs::remove(path);
  CHECK_FALSE(EventFile::continue_file(path, scan).has_value());
  write_file_atomic(path, whole.substr(ends[0]));
  CHECK_FALSE(EventFile::continue_file(path, scan).has_value());
  write_file_atomic(path, "not an event file");
  CHECK_FALSE(EventFile::continue_file(path, scan).has_value());
  fs::remove(path);
  fs::create_directory(path);
  CHECK_FALSE(EventFile::continue_file(path, scan).has_value());
  // For report and status: whole, damaged, cut short, not an event file.
  fs::remove(path);
  write_file_atomic(path, whole);
  CHECK(event_file_problem(path).empty());
  write_file_atomic(path, whole + bad_length + last);
  CHECK_THAT(event_file_problem(path),
             Contains(path.string() + ": a damaged record at byte " + std::to_string(whole.size()) + " of "));
  write_file_atomic(path, whole + last.substr(0, 20));
  CHECK_THAT(event_file_problem(path), Contains("a record cut short at byte " + std::to_string(whole.size())));
  write_file_atomic(path, "not an event file");
  CHECK_THAT(event_file_problem(path), Contains("not a TensorBoard event file"));
  CHECK(event_file_problem(dir.path() / "absent").empty());
}

namespace {

// Every whole record of an event file, decoded, in file order.
std::vector<EventRecord> records_of(const fs::path& path) {
  const std::string bytes = read_file(path);
  std::vector<EventRecord> events;
  for (size_t at = 0; const auto data = next_record(bytes, at);) events.push_back(decode_event(*data));
  return events;
}

// The byte offset of the first record holding `tag` at `step`.
size_t offset_of(const fs::path& path, const std::string& tag, int64_t step) {
  const std::string bytes = read_file(path);
  size_t at = 0, before = 0;
  while (const auto data = next_record(bytes, at)) {
    const EventRecord event = decode_event(*data);
    if (event.name == tag && event.step == step) return before;
    before = at;
  }
  FAIL("no " << tag << " at step " << step);
  return 0;
}

}  // namespace

namespace {

// Each scalar's wall time in `events`, by tag and step.
std::map<std::pair<std::string, int64_t>, double> wall_times(const std::vector<EventRecord>& events) {
  std::map<std::pair<std::string, int64_t>, double> times;
  for (const auto& event : events)
    if (event.kind == EventRecord::Kind::Scalar) times[{event.name, event.step}] = event.wall_time;
  return times;
}

}  // namespace

TEST_CASE(
    "a damaged record mid-file: the resume writes a new file from the checkpoint's rows with steps.csv's wall "
    "times, which an open TensorBoard reads; the damaged one is named and kept",
    "[train]") {
  if (!event_files_built()) return;
  StepsSetup s("events-damaged");
  REQUIRE(s.run("calm", "train.log_every=2").exit_code == 0);
  TailingReader calm(s.events("calm"));
  calm.poll();
  // Killed at step 9: the checkpoint is epoch 1's at step 5; the file holds steps 2, 4, epoch 1 at 5, 6 and 8.
  REQUIRE(s.run_faulty("killed", "train.log_every=2 --kill-at-step 9").exit_code == 128 + SIGKILL);
  const fs::path events = s.events("killed");
  const size_t damaged_at = offset_of(events, "train/lr", 4);  // inside step 4's row, before the checkpoint
  std::string bytes = read_file(events);
  bytes[damaged_at + 14] ^= 0x01;  // its data: a bad CRC in a whole record, records after it
  write_file_atomic(events, bytes);
  FolderReader stub(s.run_dir("killed")), tensorflow(s.run_dir("killed"), Reread::Same);  // open TensorBoards
  stub.poll(), tensorflow.poll();

  const auto resumed = s.run("killed", "train.log_every=2");
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  const fs::path replacement = s.run_dir("killed") / "events.out.tfevents.repro.0002";
  CHECK_THAT(resumed.output, Contains(events.string() + ": a damaged record at byte " + std::to_string(damaged_at)) &&
                                 Contains("written anew into events.out.tfevents.repro.0002") &&
                                 Contains("an open TensorBoard moves on to the new one"));
  CHECK(fs::exists(events));
  REQUIRE(fs::exists(replacement));
  FolderReader fresh(s.run_dir("killed"));  // and a reader opened afterwards
  for (FolderReader* seen : {&stub, &tensorflow, &fresh}) {
    seen->poll();
    check_events_match(seen->scalars(), s.steps("killed"), s.epochs("killed"));
    for (const auto& [tag, series] : calm.scalars())
      if (tag != "train/examples_per_s") CHECK(seen->scalars().at(tag) == series);
  }
  // The new file: one session from step 0, steps never going back, each step row at steps.csv's wall time (the
  // rows before the checkpoint's step 5 too: they took the resume's time before), no wall time going back.
  const std::vector<EventRecord> all = records_of(replacement);
  CHECK(std::count_if(all.begin(), all.end(),
                      [](const EventRecord& e) { return e.kind == EventRecord::Kind::SessionStart; }) == 1);
  double wall = 0;
  int64_t step = -1;
  for (const auto& event : all) {
    CHECK(event.wall_time >= wall);
    wall = event.wall_time;
    if (event.kind != EventRecord::Kind::Scalar) continue;
    CHECK(event.step >= step);
    step = event.step;
  }
  const auto times = wall_times(all);
  for (const StepRow& row : s.steps("killed")) {
    INFO(row.step);
    CHECK(times.at({"train/loss", row.step}) == Approx(row.wall_time).epsilon(0).margin(1e-3));
  }
}

TEST_CASE(
    "a resume checks the records it keeps: another run's records, a killed process's purged values and rows at the "
    "resume's time are written again from the checkpoint's rows",
    "[train]") {
  if (!event_files_built()) return;
  StepsSetup s("events-kept");
  // Killed at step 9, resumed and killed again at step 13 (the checkpoint of epoch 2 at step 10): the file holds the
  // first process's rows 6 and 8, a START at 5, the second's rows 5 to 12.
  REQUIRE(s.run_faulty("twice", "train.log_every=2 --kill-at-step 9").exit_code == 128 + SIGKILL);
  REQUIRE(s.run_faulty("twice", "train.log_every=2 --kill-at-step 13").exit_code == 128 + SIGKILL);
  const fs::path events = s.events("twice");
  SECTION("another run's valid records appended before the resume") {
    {
      EventFileScan scan;
      auto file = EventFile::continue_file(events, scan);
      REQUIRE(file.has_value());
      file->scalar("train/loss", 3, 123.0, 2e9);  // a step this run logs no row at
      file->scalar("other/accuracy", 4, 0.5, 2e9);
      file->scalar("train/loss", 2, 99.0, 2e9);  // a second value at a step it has
    }
    const auto resumed = s.run("twice", "train.log_every=2");
    INFO(resumed.output);
    REQUIRE(resumed.exit_code == 0);
    CHECK_THAT(resumed.output, Contains(events.string() + ": it does not show the checkpoint's rows") &&
                                   Contains("written again after a SessionLog START at step 2"));
    FolderReader reader(s.run_dir("twice"));
    reader.poll();
    check_events_match(reader.scalars(), s.steps("twice"), s.epochs("twice"));  // every value steps.csv's, no other
  }
  SECTION("the second session's START damaged: the first process's purged rows 6 and 8 never come back") {
    std::string bytes = read_file(events);
    size_t at = 0, before = 0, starts = 0;
    while (const auto data = next_record(bytes, at)) {
      if (decode_event(*data).kind == EventRecord::Kind::SessionStart && starts++ == 1) break;
      before = at;
    }
    REQUIRE(starts == 2);
    bytes[before + 14] ^= 0x01;
    write_file_atomic(events, bytes);
    REQUIRE(s.run("twice", "train.log_every=2").exit_code == 0);
    FolderReader reader(s.run_dir("twice"));
    reader.poll();
    check_events_match(reader.scalars(), s.steps("twice"), s.epochs("twice"));  // examples_per_s included
  }
}

TEST_CASE("a kill before the first checkpoint: the next start appends a START at step 0 to the same file", "[train]") {
  if (!event_files_built()) return;
  StepsSetup s("events-early");
  REQUIRE(s.run("calm", "train.log_every=2").exit_code == 0);
  TailingReader calm(s.events("calm"));
  calm.poll();
  REQUIRE(s.run_faulty("early", "train.log_every=2 --kill-at-step 3").exit_code == 128 + SIGKILL);
  const fs::path events = s.events("early");
  const std::string killed = read_file(events);
  const auto inode = [](const fs::path& path) {
    struct stat status {};
    REQUIRE(::stat(path.c_str(), &status) == 0);
    return status.st_ino;
  };
  const auto before = inode(events);
  TailingReader reader(events);  // open on the killed run's file
  reader.poll();
  CHECK(steps_of(reader.scalars().at("train/loss")) == std::vector<int64_t>{2});
  REQUIRE(s.run("early", "train.log_every=2").exit_code == 0);
  CHECK(inode(events) == before);  // the same file, appended to: an open reader keeps reading it
  CHECK(read_file(events).substr(0, killed.size()) == killed);
  reader.poll();
  CHECK(reader.starts() == 2);
  check_events_match(reader.scalars(), s.steps("early"), s.epochs("early"));
  for (const auto& [tag, series] : calm.scalars())
    if (tag != "train/examples_per_s") CHECK(reader.scalars().at(tag) == series);
  const Decoded decoded = decode_events(events, s.dir.path() / "pb-early");
  CHECK(decoded.texts == std::vector<std::string>{"spec 0 text", "spec 0 text"});  // once a session: after its START
}

TEST_CASE("status and report name a finished run's damaged event file; repro run of its spec writes it anew",
          "[train]") {
  if (!event_files_built()) return;
  StepsSetup s("events-named");
  REQUIRE(s.run("runs", "train.log_every=2").exit_code == 0);
  const fs::path events = s.events("runs");
  std::string bytes = read_file(events);
  const size_t at = offset_of(events, "train/loss", 6);
  bytes[at + 14] ^= 0x01;
  write_file_atomic(events, bytes);
  const std::string named = events.string() + ": a damaged record at byte " + std::to_string(at);
  const auto status = test::run_repro("status " + (s.dir.path() / "runs").string());
  INFO(status.output);
  CHECK(status.exit_code == 0);
  CHECK_THAT(status.output, Contains("1 complete") && Contains(named));
  const auto report = test::run_repro("report " + (s.dir.path() / "runs").string());
  INFO(report.output);
  CHECK(report.exit_code == 0);
  CHECK_THAT(report.output,
             Contains("Damaged TensorBoard event files (the runs are counted from metrics.csv):") && Contains(named));
  CHECK_THAT(report.output, Contains("`repro run` of the run's spec writes the file anew"));
  // Issue 57: it was named, never repaired. repro run of the spec on the finished run writes a new file from
  // metrics.csv and steps.csv, which an open TensorBoard moves on to; nothing is trained again.
  FolderReader open(s.run_dir("runs"));
  open.poll();
  const std::string summary = read_file(s.run_dir("runs") / "summary.json");
  const auto repaired = s.run("runs", "train.log_every=2");
  INFO(repaired.output);
  CHECK(repaired.exit_code == 0);
  CHECK_THAT(repaired.output, Contains(named) && Contains(" bytes: the finished run's scalars are written anew into "
                                                          "events.out.tfevents.repro.0002 from metrics.csv and "
                                                          "steps.csv"));
  CHECK(read_file(s.run_dir("runs") / "summary.json") == summary);
  CHECK(fs::exists(events));  // kept for a TensorBoard reading it
  open.poll();
  FolderReader fresh(s.run_dir("runs"));
  fresh.poll();
  for (const FolderReader* reader : {&open, &fresh})
    check_events_match(reader->scalars(), s.steps("runs"), s.epochs("runs"));
  // The run folder is judged by its newest event file: the older damaged one, kept on purpose, is no damage.
  const auto clean = test::run_repro("status " + (s.dir.path() / "runs").string() + " --all");
  CHECK_THAT(clean.output, Contains("1 complete") && !Contains("damaged"));
  const auto reported = test::run_repro("report " + (s.dir.path() / "runs").string());
  CHECK_THAT(reported.output, !Contains("Damaged TensorBoard event files"));
  // collect copies the newest file alone: it holds every row.
  const fs::path results = s.dir.path() / "results";
  const auto collected = test::run_repro("collect " + (s.dir.path() / "runs").string() + " " + results.string());
  INFO(collected.output);
  CHECK(collected.exit_code == 0);
  const fs::path copied = results / "steps/fashion_mnist/model/seed_2";
  CHECK(fs::exists(copied / "events.out.tfevents.repro.0002"));
  CHECK_FALSE(fs::exists(copied / "events.out.tfevents.repro"));
  const auto again = s.run("runs", "train.log_every=2");  // whole now: nothing to write
  CHECK_THAT(again.output, !Contains("written anew"));
  CHECK(fs::exists(s.run_dir("runs") / "events.out.tfevents.repro.0002"));
}

TEST_CASE("CSV floats bring a float32 back bit for bit (9 significant digits); 8-digit files still read", "[train]") {
  const auto through = [](float x, int digits) {
    return static_cast<float>(std::strtod(csv_number(x, digits).c_str(), nullptr));
  };
  float f = 0.1f;  // the first float32 from 0.1 up that 8 significant digits do not bring back
  while (through(f, 8) == f) f = std::nextafter(f, 1.0f);
  REQUIRE(f < 0.2f);
  CHECK(through(f, 9) == f);
  const auto bits = [](double value) {
    const float x = static_cast<float>(value);
    uint32_t out = 0;
    std::memcpy(&out, &x, sizeof out);
    return out;
  };
  uint32_t want = 0;
  std::memcpy(&want, &f, sizeof want);
  EpochRow epoch{1, 5, f, f, f, f, f, f, f, 1.5};
  const auto epochs = parse_metrics_csv(metrics_csv({epoch}), "metrics.csv");
  REQUIRE(epochs.size() == 1);
  for (double value : {epochs[0].lr, epochs[0].train_loss, epochs[0].train_acc, epochs[0].val_loss, epochs[0].val_acc,
                       epochs[0].test_loss, epochs[0].test_acc})
    CHECK(bits(value) == want);
  StepRow row{2, 1, f, f, f, f, NAN, 1.8e9};
  const auto rows = test::parse_steps_csv(steps_csv({row}), "steps.csv");
  REQUIRE(rows.size() == 1);
  for (double value : {rows[0].loss, rows[0].lr, rows[0].grad_norm, rows[0].examples_per_s}) CHECK(bits(value) == want);
  CHECK(bits(csv_rounded(f)) == want);  // what the event file shows
  CHECK(std::isnan(csv_rounded(NAN)));

  // metrics.csv of repro 0.4.0 and earlier (8 significant digits) reads as before.
  const auto old = parse_metrics_csv(
      "epoch,step,lr,train_loss,train_acc,val_loss,val_acc,test_loss,test_acc,seconds\n"
      "1,5,0.0029999999,0.69314718,51.388889,,,0.69314718,50,1.25\n",
      "old/metrics.csv");
  REQUIRE(old.size() == 1);
  CHECK(old[0].lr == 0.0029999999);
  CHECK(old[0].train_acc == 51.388889);
  CHECK(std::isnan(old[0].val_loss));
}

TEST_CASE("a finished run's event file deleted, or holding another run's records: repro run writes the run's anew",
          "[train]") {
  if (!event_files_built()) return;
  StepsSetup s("events-lost");
  REQUIRE(s.run("runs", "train.log_every=2").exit_code == 0);
  const fs::path events = s.events("runs");
  TailingReader calm(events);
  calm.poll();
  SECTION("deleted: written anew under its name, every row at steps.csv's wall time") {
    fs::remove(events);
    const auto repaired = s.run("runs", "train.log_every=2");
    INFO(repaired.output);
    CHECK(repaired.exit_code == 0);
    CHECK_THAT(repaired.output, Contains(events.string() + ": missing") &&
                                    Contains("written anew into events.out.tfevents.repro from metrics.csv"));
    FolderReader fresh(s.run_dir("runs"));
    fresh.poll();
    check_events_match(fresh.scalars(), s.steps("runs"), s.epochs("runs"));
    const auto times = wall_times(records_of(events));
    for (const StepRow& row : s.steps("runs"))
      CHECK(times.at({"train/loss", row.step}) == Approx(row.wall_time).epsilon(0).margin(1e-3));
  }
  SECTION("another run's file: named by status and run, written again after a START at step 0") {
    REQUIRE(s.run("other", "train.log_every=2 train.lr=1e-3").exit_code == 0);
    fs::copy_file(s.events("other"), events, fs::copy_options::overwrite_existing);
    FolderReader open(s.run_dir("runs"));  // a TensorBoard showing the other run's records
    open.poll();
    const auto status = test::run_repro("status " + (s.dir.path() / "runs").string());
    INFO(status.output);
    CHECK_THAT(status.output, Contains("holds another run's records"));
    const auto repaired = s.run("runs", "train.log_every=2");
    INFO(repaired.output);
    CHECK(repaired.exit_code == 0);
    CHECK_THAT(repaired.output, Contains(events.string() + ": holds another run's records") &&
                                    Contains("after a SessionLog START at step 0"));
    FolderReader fresh(s.run_dir("runs"));
    for (FolderReader* reader : {&open, &fresh}) {
      reader->poll();
      check_events_match(reader->scalars(), s.steps("runs"), s.epochs("runs"));
    }
    const auto clean = test::run_repro("status " + (s.dir.path() / "runs").string());
    CHECK_THAT(clean.output, !Contains("another run's"));
  }
}

TEST_CASE(
    "an event file of other bytes, or with a damaged first record: a resume writes the next name and says so, "
    "the rows at steps.csv's wall times",
    "[train]") {
  if (!event_files_built()) return;
  StepsSetup s("events-first");
  REQUIRE(s.run("calm", "train.log_every=2").exit_code == 0);
  TailingReader calm(s.events("calm"));
  calm.poll();
  REQUIRE(s.run_faulty("killed", "train.log_every=2 --kill-at-step 9").exit_code == 128 + SIGKILL);
  const fs::path events = s.events("killed");
  std::string bytes = read_file(events);
  SECTION("other bytes") {
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>((i * 2654435761u) >> 13);
  }
  SECTION("a damaged first record") {
    bytes[14] ^= 0x01;  // the file_version event's data
  }
  write_file_atomic(events, bytes);
  FolderReader open(s.run_dir("killed"));  // a TensorBoard open on it: it reads nothing
  open.poll();
  const auto resumed = s.run("killed", "train.log_every=2");
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK_THAT(resumed.output, Contains("[warning]") && Contains(events.string() + ": not a TensorBoard event file") &&
                                 Contains("written anew into events.out.tfevents.repro.0002"));
  CHECK(read_file(events) == bytes);  // not a byte changed under a reader
  const fs::path replacement = s.run_dir("killed") / "events.out.tfevents.repro.0002";
  REQUIRE(fs::exists(replacement));
  FolderReader fresh(s.run_dir("killed"));
  for (FolderReader* reader : {&open, &fresh}) {
    reader->poll();
    CHECK(reader->file() == replacement);
    check_events_match(reader->scalars(), s.steps("killed"), s.epochs("killed"));
  }
  const auto times = wall_times(records_of(replacement));
  for (const StepRow& row : s.steps("killed")) {
    INFO(row.step);
    CHECK(times.at({"train/loss", row.step}) == Approx(row.wall_time).epsilon(0).margin(1e-3));
  }
}

TEST_CASE("an ordinary resume: the checkpoint's own row is written again at steps.csv's wall time", "[train]") {
  if (!event_files_built()) return;
  StepsSetup s("events-resume-time");
  // A row every step; killed at step 9, the checkpoint is epoch 1's at step 5: the resume's START at 5 drops the
  // file's row at step 5 (and 6 to 8), which the new session writes again.
  REQUIRE(s.run_faulty("killed", "train.log_every=1 --kill-at-step 9").exit_code == 128 + SIGKILL);
  REQUIRE(s.run("killed", "train.log_every=1").exit_code == 0);
  const std::vector<EventRecord> all = records_of(s.events("killed"));
  size_t second = 0;  // the second session's records begin after its START
  for (size_t i = 0, starts = 0; i < all.size(); ++i)
    if (all[i].kind == EventRecord::Kind::SessionStart && ++starts == 2) second = i;
  REQUIRE(second > 0);
  REQUIRE(all[second].step == 5);
  const auto rows = s.steps("killed");
  const auto row5 = std::find_if(rows.begin(), rows.end(), [](const StepRow& r) { return r.step == 5; });
  REQUIRE(row5 != rows.end());
  const auto times = wall_times({all.begin() + static_cast<std::ptrdiff_t>(second), all.end()});
  CHECK(all[second].wall_time == Approx(row5->wall_time).epsilon(0).margin(1e-3));
  CHECK(times.at({"train/loss", 5}) == Approx(row5->wall_time).epsilon(0).margin(1e-3));
  CHECK(times.at({"val/acc", 5}) ==
        Approx(row5->wall_time).epsilon(0).margin(1e-3));  // the epoch's row, at its last step
}
