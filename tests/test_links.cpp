// Nothing is written through a symbolic link (issue 34): a whole-file write replaces a link at
// its path and leaves the link's target as it was; an append to a link is refused with one line.
// Three layers: the primitives of util/files (every writer goes through them), a scan of the
// sources for any other way of opening a file for writing, and end-to-end runs, reports, benches
// and evaluations with a link planted where each of their files goes.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <regex>

#include "catch.h"
#include "fixtures.h"
#include "run_repro.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

using namespace repro;
namespace fs = std::filesystem;
using repro::test::Contains;

namespace {

const std::string kVictim = "victim: repro must never write here\n";

// A file outside the folder repro writes to, and a link to it at `at`. The file holds what `at` held, if anything
// and `keep_content` (so that repro reads the same record through the link), else kVictim. Returns the file.
fs::path plant_link(const fs::path& at, const fs::path& victims, bool keep_content = true) {
  const fs::path victim = victims / (at.filename().string() + ".victim");
  write_file_atomic(victim, keep_content && fs::is_regular_file(at) ? read_file(at) : kVictim);
  std::error_code ignored;
  fs::remove(at, ignored);
  fs::create_directories(at.parent_path());
  fs::create_symlink(victim, at);
  return victim;
}

bool is_link(const fs::path& path) { return fs::is_symlink(fs::symlink_status(path)); }

}  // namespace

TEST_CASE("whole-file writes replace a link, appends refuse one; the target is never written", "[report][links]") {
  test::TempDir dir("links-primitives");
  const fs::path victims = dir.path() / "victims", out = dir.path() / "out";

  const fs::path whole = out / "summary.json";
  const fs::path whole_victim = plant_link(whole, victims);
  write_file_atomic(whole, "{}\n");
  CHECK_FALSE(is_link(whole));
  CHECK(read_file(whole) == "{}\n");
  CHECK(read_file(whole_victim) == kVictim);

  // A link planted at the temporary file's name is not followed either.
  const fs::path temp_victim = plant_link(temp_sibling(out / "metrics.csv"), victims);
  write_file_atomic(out / "metrics.csv", "epoch\n");
  CHECK(read_file(out / "metrics.csv") == "epoch\n");
  CHECK(read_file(temp_victim) == kVictim);
  CHECK_FALSE(fs::exists(fs::symlink_status(temp_sibling(out / "metrics.csv"))));

  const fs::path appended = out / "log.txt";
  const fs::path appended_victim = plant_link(appended, victims);
  CHECK_THROWS_WITH(append_file(appended, "line\n"), Contains("cannot write " + appended.string()) &&
                                                         Contains("it is a symbolic link"));
  CHECK_THROWS_WITH(OutputFile::append(appended), Contains("it is a symbolic link"));
  CHECK_THROWS_WITH(refuse_link(appended), Contains("it is a symbolic link"));
  CHECK(read_file(appended_victim) == kVictim);
  CHECK(is_link(appended));  // refused, not removed: the user decides

  const fs::path events = out / "events.out.tfevents.repro";
  const fs::path events_victim = plant_link(events, victims);
  {
    OutputFile file = OutputFile::replace(events);
    file.write("record 1");
    file.write(std::string("record 2"));
  }
  CHECK_FALSE(is_link(events));
  CHECK(read_file(events) == "record 1record 2");
  CHECK(read_file(events_victim) == kVictim);

  // A link to a folder at a file's path: replaced as well, the folder untouched.
  fs::create_directories(victims / "folder");
  fs::create_symlink(victims / "folder", out / "plan.json");
  write_file_atomic(out / "plan.json", "{}\n");
  CHECK_FALSE(is_link(out / "plan.json"));
  CHECK(fs::is_empty(victims / "folder"));

  // Plain files keep working: append, then replace.
  append_file(out / "plain.txt", "a\n");
  append_file(out / "plain.txt", "b\n");
  CHECK(read_file(out / "plain.txt") == "a\nb\n");
}

// The writers themselves: only util/files.cpp opens files for writing, but for the three places named below with
// the reason each is safe. A new writer that opens a path its own way fails here until it goes through util/files.
TEST_CASE("no source file opens a file for writing but through util/files", "[report][links]") {
  const std::regex writer(
      R"re(std::ofstream|std::fstream|\bfopen\s*\(|\bfreopen\s*\(|cv::imwrite|cairo_surface_write_to_png\s*\(|cairo_svg_surface_create\s*\(|basic_file_sink|torch::save\s*\(|\.save_to\s*\(\s*[a-z_]*(path|file)|O_WRONLY|O_RDWR|fs::copy|std::filesystem::copy|create_symlink)re");
  const std::map<std::string, std::string> allowed = {
      {"util/files.cpp", "the primitives: O_NOFOLLOW, O_EXCL temporaries, rename"},
      {"run/lock.cpp", "the run lock: refuse_link, then O_NOFOLLOW"},
      {"run/run_log.cpp", "log.txt's spdlog sink, after refuse_link on its path"},
      {"tools/repro_spm.cpp", "the SentencePiece helper writes its model into a mkdtemp folder of its own"},
  };
  int files = 0;
  const std::vector<std::string> found = test::source_lines_matching(writer, allowed, &files);
  CHECK(files > 150);
  INFO(join(found, "\n"));
  CHECK(found.empty());
}

// The readers: a file read whole is read by util/files' read_regular_file, with its bound and what it should be, never
// by an unbounded read of its own (issue 49: /dev/zero as a spec took the memory, a FIFO hung report). The
// remaining ifstreams read line by line, each for the reason named.
TEST_CASE("no source file reads a whole file but through read_regular_file, with a bound", "[report][links]") {
  const std::regex reader(R"re(\bread_file\s*\(|std::ifstream|istreambuf_iterator|YAML::LoadFile)re");
  const std::map<std::string, std::string> allowed = {
      {"util/files.cpp", "read_file is read_regular_file with the largest bound, for tests and tools"},
      {"util/files.h", "its declaration"},
      {"util/sha256.cpp", "streams in 1 MiB pieces, after regular_file_size refused a FIFO or a device"},
      {"util/version.cpp", "/proc/cpuinfo, line by line until the model name"},
      {"run/threads.cpp", "the cgroup's cpu.max, one line"},
      {"data/hash_cache.cpp", "the checksum cache, line by line, after non_regular_kind refused a FIFO or a device"},
      {"tools/repro_spm.cpp", "the SentencePiece helper reads the model it wrote in its own mkdtemp folder"},
  };
  const std::vector<std::string> found = test::source_lines_matching(reader, allowed);
  INFO(join(found, "\n"));
  CHECK(found.empty());
}

TEST_CASE("read_regular_file refuses a folder, a FIFO, a device and a file beyond its bound at once", "[report]") {
  test::TempDir dir("read-regular");
  const fs::path fifo = dir.path() / "fifo", folder = dir.path() / "folder", file = dir.path() / "file";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  fs::create_directory(folder);
  write_file_atomic(file, std::string(100, 'x'));
  CHECK(read_regular_file(file, 100, "a test file") == std::string(100, 'x'));
  CHECK(regular_file_size(file, 100, "a test file") == 100);
  CHECK_THROWS_WITH(read_regular_file(file, 99, "a test file"),
                    Contains(file.string() + ": 100 bytes, more than the 99 bytes a test file may hold"));
  CHECK_THROWS_WITH(read_regular_file(fifo, 100, "a test file"),
                    Contains(fifo.string() + ": is a FIFO (named pipe), expected a test file (a regular file)"));
  CHECK_THROWS_WITH(read_regular_file(folder, 100, "a test file"), Contains(folder.string() + ": is a folder"));
  CHECK_THROWS_WITH(read_regular_file("/dev/zero", kMiB, "a test file"), Contains("/dev/zero: is a character device"));
  CHECK_THROWS_WITH(regular_file_size("/dev/urandom", kStreamedBytes, "a test file"),
                    Contains("/dev/urandom: is a character device"));
  CHECK_THROWS_WITH(read_regular_file(dir.path() / "absent", 100, "a test file"),
                    Contains("cannot read " + (dir.path() / "absent").string() + ": No such file or directory"));
  CHECK(non_regular_kind(fifo) == "a FIFO (named pipe)");
  CHECK(non_regular_kind(file).empty());
  CHECK(non_regular_kind(dir.path() / "absent").empty());
}

TEST_CASE("a run, its resume, report, eval and bench write no file through a planted link", "[cli][links]") {
  test::TempDir dir("links-e2e");
  test::ScopedCache cache;
  const fs::path root = dir.path(), victims = root / "victims", out = root / "out";
  test::write_fashion_fixture(root / "data", 96, 32);
  const std::string run = "run " + std::string(REPRO_SOURCE_DIR) +
                          "/experiments/smoke.yaml data.train_limit=0 data.test_limit=0 data.verify=off "
                          "train.epochs=2 train.tensorboard=true --rows vit --device cpu --data-root " +
                          (root / "data").string() + " --out " + out.string();
  const fs::path seed = out / "smoke/fashion_mnist/vit/seed_0";

  SECTION("every record file of a resumed run, the plan and the table") {
    const auto stopped = test::run_repro_faults(run + " --stop-after-epoch 1");
    INFO(stopped.output);
    REQUIRE(stopped.exit_code == 3);
    std::map<fs::path, std::pair<fs::path, std::string>> victim_of;  // planted link -> (its target, its content)
    const auto plant = [&](const fs::path& at) {
      const fs::path victim = plant_link(at, victims);
      victim_of[at] = {victim, read_file(victim)};
    };
    // The files a stopped run has (read through the links as they were: the same records), and model.pt, written
    // at its end. (summary.json is read first, so a link to something else stops the run; the first test case
    // shows that its write replaces a link.)
    for (const char* name : {"events.out.tfevents.repro", "steps.csv", "metrics.csv", "spec.resolved.yaml", "model.pt"})
      plant(seed / name);
    for (const char* name : {"plan.json", "table.md"}) plant(out / "smoke" / name);
    const auto resumed = test::run_repro(run);
    INFO(resumed.output);
    CHECK(resumed.exit_code == 0);
    CHECK_THAT(resumed.output, Contains("resuming"));
    for (const auto& [path, victim] : victim_of) {
      INFO(path.string());
      CHECK(read_file(victim.first) == victim.second);
      CHECK_FALSE(is_link(path));  // replaced by the run's own file
    }
    CHECK_THAT(read_file(seed / "summary.json"), Contains("\"status\": \"complete\""));

    // What reads the finished run writes no link's target either: report, its figures, eval, bench.
    const std::string report_command = "report " + out.string() + " -o " + (root / "report.md").string() + " --plots";
    REQUIRE(test::run_repro(report_command).exit_code == 0);  // makes the figures: then a link at each of them
    std::map<fs::path, fs::path> figure_victims;
    for (const auto& entry : fs::directory_iterator(root / "figures"))
      figure_victims[entry.path()] = plant_link(entry.path(), victims / "figures", false);
    CHECK(figure_victims.size() >= 2);  // a PNG and its CSV at least
    const fs::path report = plant_link(root / "report.md", victims, false);
    const auto reported = test::run_repro(report_command);
    INFO(reported.output);
    CHECK(reported.exit_code == 0);
    CHECK(read_file(report) == kVictim);
    CHECK_FALSE(is_link(root / "report.md"));
    for (const auto& [figure, victim] : figure_victims) {
      INFO(figure.string());
      CHECK(read_file(victim) == kVictim);
      CHECK_FALSE(is_link(figure));
    }

    const fs::path eval_json = seed / "eval/test.json";
    const fs::path eval_victim = plant_link(eval_json, victims);
    const auto evaluated = test::run_repro("eval " + seed.string() + " data.verify=off --name test --device cpu --data-root " +
                                           (root / "data").string());
    INFO(evaluated.output);
    CHECK(evaluated.exit_code == 0);
    CHECK(read_file(eval_victim) == kVictim);
    CHECK_FALSE(is_link(eval_json));

    const fs::path bench_victim = plant_link(root / "bench.json", victims);
    const auto benched = test::run_repro("bench " + std::string(REPRO_SOURCE_DIR) +
                                         "/experiments/smoke.yaml data.verify=off --rows vit --steps 1 --warmup 0 "
                                         "--device cpu --data-root " +
                                         (root / "data").string() + " --out " + (root / "bench.json").string());
    INFO(benched.output);
    CHECK(benched.exit_code == 0);
    CHECK(read_file(bench_victim) == kVictim);
    CHECK_FALSE(is_link(root / "bench.json"));
  }

  // The two files repro appends to or locks: a link there is refused with one line naming it.
  for (const char* name : {"log.txt", "lock"})
    SECTION(std::string(name) + " as a link: the run is refused with one line, the target untouched") {
      const fs::path victim = plant_link(seed / name, victims);
      const auto refused = test::run_repro(run);
      INFO(refused.output);
      CHECK(refused.exit_code != 0);
      CHECK_THAT(refused.output, Contains(seed.string() + "/" + name) && Contains("it is a symbolic link"));
      CHECK(read_file(victim) == kVictim);
      CHECK(is_link(seed / name));
    }

  SECTION("checkpoint.pt as a link is read, never written: the run says it is unreadable, the target untouched") {
    const fs::path victim = plant_link(seed / "checkpoint.pt", victims);
    const auto refused = test::run_repro(run);
    INFO(refused.output);
    CHECK(refused.exit_code != 0);
    CHECK_THAT(refused.output, Contains("checkpoint.pt"));
    CHECK(read_file(victim) == kVictim);
  }
}

// Issue 34: a plan.json.tmp-PID left in the experiment folder by a process that died in its first rename is removed
// on the next start, as the run folders' temporaries are.
TEST_CASE("a stale plan.json temporary is removed on the next start", "[cli]") {
  test::TempDir dir("stale-plan-temp");
  test::write_fashion_fixture(dir.path() / "data", 96, 32);
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  REQUIRE(dead > 0);
  ::waitpid(dead, nullptr, 0);
  const fs::path stale = dir.path() / "out/smoke" / ("plan.json.tmp-" + std::to_string(dead));
  write_file_atomic(stale, "{\"half\": ");
  const auto result = test::run_repro("run " + std::string(REPRO_SOURCE_DIR) +
                                      "/experiments/smoke.yaml data.train_limit=0 data.test_limit=0 data.verify=off "
                                      "train.epochs=1 --rows vit --device cpu --data-root " +
                                      (dir.path() / "data").string() + " --out " + (dir.path() / "out").string());
  INFO(result.output);
  CHECK(result.exit_code == 0);
  CHECK_FALSE(fs::exists(stale));
  CHECK(fs::exists(dir.path() / "out/smoke/plan.json"));
}
