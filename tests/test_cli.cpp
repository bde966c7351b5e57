// End to end: the repro binary on a generated Fashion-MNIST, as a user runs it.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "catch.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "data/dataset.h"
#include "data/registry.h"
#include "fixtures.h"
#include "record/plan_record.h"
#include "run/lock.h"
#include "run/plan.h"
#include "run_repro.h"
#include "util/files.h"
#include "util/memory.h"
#include "util/strings.h"

using namespace repro;
using repro::test::Contains;
namespace fs = std::filesystem;

using test::Result;
using test::run_repro;

TEST_CASE("repro run on the smoke spec writes records and a table; a rerun skips", "[cli]") {
  test::TempDir dir("cli");
  test::write_fashion_fixture(dir.path() / "data", 600, 300);
  const std::string spec = std::string(REPRO_SOURCE_DIR) + "/experiments/smoke.yaml";
  const std::string common = " data.verify=off --threads 1 --data-root " + (dir.path() / "data").string() + " --out " +
                             (dir.path() / "runs").string();
  const Result first = run_repro("run " + spec + common);
  INFO(first.output);
  REQUIRE(first.exit_code == 0);
  CHECK_THAT(first.output, Contains("| model | fashion_mnist |") && Contains(" ± ") && Contains("n = 2 seeds"));
  const auto run_dir = dir.path() / "runs/smoke/fashion_mnist/vit/seed_1";
  for (const char* file : {"spec.resolved.yaml", "metrics.csv", "summary.json", "log.txt"})
    CHECK(std::filesystem::exists(run_dir / file));
  CHECK_THAT(read_file(run_dir / "summary.json"), Contains("\"status\": \"complete\"") && Contains("\"git_commit\""));
  CHECK(std::filesystem::exists(dir.path() / "runs/smoke/table.md"));

  const Result second = run_repro("run " + spec + common);
  CHECK(second.exit_code == 0);
  CHECK_THAT(second.output, Contains("4 of 4 runs were already finished and were skipped"));

  const Result report = run_repro("report " + (dir.path() / "runs").string() + " --format csv");
  CHECK(report.exit_code == 0);
  CHECK_THAT(report.output, Contains("smoke,vit,fashion_mnist,test_acc,2,"));
}

TEST_CASE("eval and rollout targets: KEY=VALUE is a data override unless a file of that name exists", "[cli]") {
  test::TempDir dir("targets");
  const auto odd_run = dir.path() / "lr=0.1";  // a run folder whose name has '='
  std::filesystem::create_directories(odd_run);
  const RunTargets split = split_run_targets({"runs/a", "data.noise.level=0.1", odd_run.string(), "runs/b"});
  CHECK(split.folders == std::vector<std::string>{"runs/a", odd_run.string(), "runs/b"});
  REQUIRE(split.overrides.size() == 1);
  CHECK(split.overrides[0].key == "data.noise.level");
  CHECK(split.overrides[0].raw == "0.1");
}

TEST_CASE("a misspelt key exits non-zero naming the key and suggesting the right one", "[cli]") {
  test::TempDir dir("cli-typo");
  test::write_text(dir.path() / "bad.yaml", "datasets: [fashion_mnist]\ntrain:\n  epohcs: 3\n");
  const Result result = run_repro("run " + (dir.path() / "bad.yaml").string());
  CHECK(result.exit_code != 0);
  CHECK_THAT(result.output, Contains("bad.yaml:3") && Contains("unknown key 'train.epohcs'") &&
                                Contains("did you mean 'train.epochs'?"));
  const Result override_typo =
      run_repro("run " + std::string(REPRO_SOURCE_DIR) + "/experiments/smoke.yaml model.dimm=4");
  CHECK(override_typo.exit_code != 0);
  CHECK_THAT(override_typo.output, Contains("did you mean 'model.dim'?"));
}

TEST_CASE("dry run, params, list and version", "[cli]") {
  const std::string spec = std::string(REPRO_SOURCE_DIR) + "/experiments/smoke.yaml";
  const Result dry = run_repro("run " + spec + " --dry-run");
  CHECK(dry.exit_code == 0);
  CHECK_THAT(dry.output, Contains("4 runs in 2 model configuration x dataset pairs") && Contains("model.dim = 32"));
  const Result params = run_repro("params " + spec);
  CHECK(params.exit_code == 0);
  CHECK_THAT(params.output, Contains("| vit | fashion_mnist |"));
  const Result list = run_repro("list");
  CHECK_THAT(list.output, Contains("vanilla") && Contains("train.lr") && Contains("fashion_mnist"));
  // Rotten Tomatoes has no official split (it said "0 test"; issue 64): its size, and that repro splits it.
  CHECK_THAT(list.output,
             Contains("rotten_tomatoes text, 2 classes, 10662 examples, no official split: split at load\n") &&
                 !Contains(" 0 test"));
  const Result version = run_repro("--version");
  CHECK_THAT(version.output, Contains("LibTorch") && Contains("BLAS") && Contains("git commit"));
  test::TempDir dir("cli-missing");
  // A data root that is no folder: one line, exit 2, before any record is written (issue 48: it wrote one failed
  // record per run, each with the same long message); the dry run says a real run would stop there.
  const Result missing = run_repro("run " + spec + " --data-root /nonexistent --out " + dir.path().string());
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output, Contains("--data-root '/nonexistent': no such folder; every dataset is read from there"));
  CHECK(test::count_of(missing.output, "/nonexistent") == 1);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "smoke"));
  const Result dry_missing = run_repro("run " + spec + " --dry-run --data-root /nonexistent");
  CHECK(dry_missing.exit_code == 0);
  CHECK_THAT(dry_missing.output, Contains("a real run would stop here: --data-root '/nonexistent': no such folder"));
  // An existing root with nothing of a planned dataset: the pre-flight names the dataset once, where it looked and
  // how to get it, exit 2, no record; the dry run says so too. A README at the root is no archive (issue 57: any
  // file there was taken for one).
  test::TempDir empty_root("cli-empty-root");
  test::write_text(empty_root.path() / "README", "the datasets go here\n");
  const Result absent =
      run_repro("run " + spec + " --data-root " + empty_root.path().string() + " --out " + dir.path().string());
  INFO(absent.output);
  CHECK(absent.exit_code == 2);
  CHECK_THAT(absent.output, Contains("1 planned dataset(s) missing, found before anything trained: fashion_mnist "
                                     "(nothing of it under ") &&
                                Contains("repro data fetch fashion_mnist"));
  CHECK(test::count_of(absent.output, "fashion_mnist (nothing of it") == 1);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "smoke"));
  const Result dry_absent = run_repro("run " + spec + " --dry-run --data-root " + empty_root.path().string());
  CHECK_THAT(dry_absent.output,
             Contains("a real run would stop here: --data-root '") && Contains("planned dataset(s) missing"));
  // A root with part of a dataset: the run reading it names the missing file and where it was looked for.
  test::write_text(empty_root.path() / "fashion_mnist/README", "not the data\n");
  const Result partial =
      run_repro("run " + spec + " --data-root " + empty_root.path().string() + " --out " + dir.path().string());
  CHECK(partial.exit_code != 0);
  CHECK_THAT(partial.output, Contains("missing file train-images-idx3-ubyte.gz"));
}

TEST_CASE("a data root that cannot be read or is a link loop, a dataset folder linked to itself: named with why",
          "[cli]") {
  const std::string spec = std::string(REPRO_SOURCE_DIR) + "/experiments/smoke.yaml";
  test::TempDir dir("cli-root-loops");
  const std::filesystem::path out = dir.path() / "out";
  // A data root that is a link to itself, and a root whose dataset folder is one (issue 57: "no such folder" and
  // "missing").
  std::filesystem::create_symlink("loop", dir.path() / "loop");
  const Result loop =
      run_repro("run " + spec + " --data-root " + (dir.path() / "loop").string() + " --out " + out.string());
  INFO(loop.output);
  CHECK(loop.exit_code == 2);
  CHECK_THAT(loop.output, Contains((dir.path() / "loop").string() + ": Too many levels of symbolic links") &&
                              Contains("a symbolic link that leads back to itself"));
  CHECK(test::count_of(loop.output, "\n") == 1);
  std::filesystem::create_directories(dir.path() / "root");
  std::filesystem::create_symlink("fashion_mnist", dir.path() / "root/fashion_mnist");
  const Result self =
      run_repro("run " + spec + " --data-root " + (dir.path() / "root").string() + " --out " + out.string());
  INFO(self.output);
  CHECK(self.exit_code == 2);
  CHECK_THAT(self.output, Contains("dataset fashion_mnist: " + (dir.path() / "root/fashion_mnist").string() +
                                   ": Too many levels of symbolic links"));
  // A root that cannot be listed: Permission denied, not "missing". Root reads any folder: the child runs as
  // nobody there.
  std::filesystem::create_directories(dir.path() / "locked");
  std::filesystem::permissions(dir.path(), std::filesystem::perms::all);  // traversable by nobody
  std::filesystem::permissions(dir.path() / "locked", std::filesystem::perms::none);
  const std::string as_user = ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  const Result locked = test::run_command(as_user + REPRO_BINARY + " run " + spec + " --data-root " +
                                          (dir.path() / "locked").string() + " --out " + out.string());
  INFO(locked.output);
  CHECK(locked.exit_code == 2);
  CHECK_THAT(locked.output, Contains((dir.path() / "locked").string() + ": cannot be listed (Permission denied)"));
  std::filesystem::permissions(dir.path() / "locked", std::filesystem::perms::owner_all);
  CHECK_FALSE(std::filesystem::exists(out));  // refused before anything was written
}

TEST_CASE("a run killed with SIGKILL mid-epoch resumes to the numbers of an undisturbed run", "[cli]") {
  test::TempDir dir("cli-kill");
  test::write_fashion_fixture(dir.path() / "data", 400, 100);
  // Two configurations x two seeds of a one-block ViT: the smallest plan with every case (the killed run, its
  // untouched seed, a second configuration).
  const std::string spec = (dir.path() / "kill.yaml").string();
  test::write_text(spec,
                   "experiment: kill\ndatasets: [fashion_mnist]\nseeds: [0, 1]\n"
                   "model: {dim: 16, depth: 1, heads: 2, patch: 7, dropout: 0.1, ffn: {ratio: 2}}\n"
                   "data: {val_fraction: 0.125, verify: off}\n"
                   "train: {epochs: 3, batch_size: 64, eval_batch_size: 128, lr: 2e-3, warmup_steps: 4}\n"
                   "models:\n  - name: vit\n  - name: vit-mlp4\n    model: {ffn: {ratio: 4}}\n");
  // One LibTorch thread: on a loaded 2-core machine two threads wait for each other at every parallel region, which
  // made this test take 68-127 s; at one thread the three commands take a few seconds, with the same checks.
  const std::string data = " --threads 1 --data-root " + (dir.path() / "data").string();
  REQUIRE(run_repro("run " + spec + data + " --out " + (dir.path() / "calm").string()).exit_code == 0);
  // 350 training images (50 held out) at batch 64: 6 steps per epoch; step 9 is mid-epoch 2.
  const std::string killed_out = " --out " + (dir.path() / "killed").string();
  const Result killed = test::run_repro_faults("run " + spec + data + killed_out + " --kill-at-step 9");
  CHECK(killed.exit_code != 0);
  const auto run_dir = dir.path() / "killed/kill/fashion_mnist/vit/seed_0";
  CHECK(std::filesystem::exists(run_dir / "checkpoint.pt"));
  CHECK(split_lines(read_file(run_dir / "metrics.csv")).size() == 2);  // header + epoch 1
  CHECK(std::filesystem::exists(RunLock::path_in(run_dir)));           // the killed run's lock file stays...
  CHECK_FALSE(RunLock::holder(run_dir).has_value());                   // ...but the kernel released its lock
  const Result resumed = run_repro("run " + spec + data + killed_out);
  INFO(resumed.output);
  REQUIRE(resumed.exit_code == 0);
  CHECK_THAT(resumed.output, Contains("resuming"));
  for (const char* config : {"vit", "vit-mlp4"})
    for (const char* seed : {"seed_0", "seed_1"}) {
      const auto rel = std::filesystem::path("kill/fashion_mnist") / config / seed / "metrics.csv";
      auto strip = [](const std::string& text) {  // drop the wall-time column
        std::string out;
        for (const auto& line : split_lines(text)) out += line.substr(0, line.rfind(',')) + "\n";
        return out;
      };
      INFO(rel.string());
      CHECK(split_lines(read_file(dir.path() / "calm" / rel)).size() == 4);  // header + 3 epochs
      CHECK(strip(read_file(dir.path() / "killed" / rel)) == strip(read_file(dir.path() / "calm" / rel)));
    }
}

TEST_CASE("a run that fails while training is recorded as failed; the others go on and the command exits 1", "[cli]") {
  test::TempDir dir("cli-failed");
  test::write_fashion_fixture(dir.path() / "data", 60, 20);
  // A CIFAR-10 folder without its files: past the pre-flight (something is there), its run fails at load.
  test::write_text(dir.path() / "data/cifar10/README", "the batches are still downloading\n");
  const std::string spec = (dir.path() / "two.yaml").string();
  test::write_text(spec,
                   "experiment: two\ndatasets: [cifar10, fashion_mnist]\n"
                   "model: {dim: 16, depth: 1, heads: 2, patch: 7}\nper_dataset: {cifar10: {model.patch: 8}}\n"
                   "data: {verify: off}\n"
                   "train: {epochs: 1, batch_size: 16}\n");
  const Result result = run_repro("run " + spec + " --threads 1 --data-root " + (dir.path() / "data").string() +
                                  " --out " + (dir.path() / "runs").string());
  INFO(result.output);
  CHECK(result.exit_code == 1);
  CHECK_THAT(result.output, Contains("| model | cifar10 | fashion_mnist |") && Contains("1 of 2 runs failed"));
  const auto failed = nlohmann::json::parse(read_file(dir.path() / "runs/two/cifar10/model/seed_0/summary.json"));
  CHECK(failed["status"] == "failed");
  CHECK_THAT(failed["message"].get<std::string>(), Contains("cifar10"));
  CHECK(failed["message"].get<std::string>().find('\n') == std::string::npos);  // one line
  CHECK_THAT(read_file(dir.path() / "runs/two/fashion_mnist/model/seed_0/summary.json"),
             Contains("\"status\": \"complete\""));
}

TEST_CASE("training keeps freed memory unless the user tuned glibc's malloc", "[cli]") {
  const char* before = std::getenv("MALLOC_TRIM_THRESHOLD_");
  const std::string saved = before != nullptr ? before : "";
  ::setenv("MALLOC_TRIM_THRESHOLD_", "131072", 1);
  repro::keep_freed_memory();
  CHECK(repro::malloc_policy() == "set by the environment");
  ::unsetenv("MALLOC_TRIM_THRESHOLD_");
  if (std::getenv("GLIBC_TUNABLES") == nullptr) {
    repro::keep_freed_memory();
    CHECK(repro::malloc_policy() == "mmap/trim thresholds 1 GiB (repro)");
  }
  if (!saved.empty()) ::setenv("MALLOC_TRIM_THRESHOLD_", saved.c_str(), 1);
}

TEST_CASE("repro bench times each model of a spec and writes bench.json", "[cli]") {
  test::TempDir dir("bench");
  const std::string spec = std::string(REPRO_SOURCE_DIR) + "/experiments/smoke.yaml";
  const auto json_path = dir.path() / "bench.json";
  const Result result = run_repro("bench " + spec + " --steps 2 --warmup 1 --eval-batches 1 --device cpu --out " +
                                  json_path.string() + " train.eval_batch_size=8");
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.output, Contains("| model | dataset | params |") && Contains("MFU against"));
  const auto bench = nlohmann::json::parse(read_file(json_path));
  REQUIRE(bench["results"].size() >= 1);
  const auto& first = bench["results"][0];
  CHECK(first["train_ms_per_step"].get<double>() > 0);
  CHECK(first["forward_flops_per_example"].get<double>() > 0);
  CHECK(first["settings"]["model.attention.kind"].is_string());
  CHECK(bench["environment"]["device"] == "cpu");
  CHECK(bench["environment"]["kernel_threads"].get<int>() >= 1);
  CHECK(bench["environment"]["kernel_threads"].get<int>() <= bench["environment"]["threads"].get<int>());
  if (std::getenv("GLIBC_TUNABLES") == nullptr && std::getenv("MALLOC_TRIM_THRESHOLD_") == nullptr)
    CHECK(bench["environment"]["malloc"] == "mmap/trim thresholds 1 GiB (repro)");
  // What decides whether two CPU machines give the same bits: the CPU and OpenBLAS's kernels for it.
  if (bench["environment"]["blas"].get<std::string>().rfind("OpenBLAS", 0) == 0)
    CHECK_FALSE(bench["environment"]["blas_core"].get<std::string>().empty());
  if (read_file("/proc/cpuinfo").find("cpu family") != std::string::npos)  // x86 Linux
    CHECK_THAT(bench["environment"]["cpu"].get<std::string>(), Contains(" (family "));
  CHECK(bench["peak_tflops"].get<double>() > 0);

  const Result bad = run_repro("bench " + spec + " --only no_such_model --out " + json_path.string());
  CHECK(bad.exit_code != 0);
  CHECK_THAT(bad.output, Contains("--only 'no_such_model'"));

  // A "no cap" vocabulary (as experiments/params_text.yaml's readings write it) is refused, not allocated.
  const std::string bench_spec = std::string(REPRO_SOURCE_DIR) + "/experiments/bench.yaml";
  const Result huge = run_repro("bench " + bench_spec + " --only imdb/vanilla --device cpu --out " +
                                json_path.string() + " text.max_vocab=100000000");
  CHECK(huge.exit_code == 2);
  CHECK_THAT(huge.output, Contains("text.max_vocab = 100000000") && Contains("at most 10000000"));
}

TEST_CASE("repro bench --data-root times the real training split: texts at their lengths, batches trimmed", "[cli]") {
  test::TempDir dir("bench-real");
  // Reviews of 1 to 9 words: every batch is far shorter than text.max_len.
  std::string pos, neg;
  for (int i = 0; i < 60; ++i) {
    std::string words;
    for (int w = 0; w <= i % 9; ++w) words += (w ? " " : "") + std::string(w % 2 ? "good" : "film");
    pos += words + "\n";
    neg += words + " bad\n";
  }
  test::write_tar(dir.path() / "data/rotten_tomatoes/rt-polaritydata.tar.gz",
                  {{"rt-polaritydata/rt-polarity.pos", pos}, {"rt-polaritydata/rt-polarity.neg", neg}});
  ::setenv("REPRO_CACHE", (dir.path() / "cache").c_str(), 1);
  const std::string spec = std::string(REPRO_SOURCE_DIR) + "/experiments/table2.yaml --profile smoke";
  const auto bench = [&](const std::string& extra, const std::string& name) {
    const Result result = run_repro("bench " + spec + " --only rotten_tomatoes/Transformer --steps 2 --warmup 1 " +
                                    "--eval-batches 1 --device cpu --out " + (dir.path() / name).string() +
                                    " data.verify=off text.max_len=64 train.batch_size=8 " + extra);
    INFO(result.output);
    REQUIRE(result.exit_code == 0);
    return nlohmann::json::parse(read_file(dir.path() / name))["results"][0];
  };
  const auto real = bench("--data-root " + (dir.path() / "data").string() + " --epoch", "real.json");
  const auto synthetic = bench("", "synthetic.json");
  // Three rows on one dataset: it is read (and tokenized) once, by the one loader of the command.
  const Result rows =
      run_repro("bench " + spec + " --only rotten_tomatoes/DIFF --steps 1 --warmup 1 --eval-batches 1 " +
                "--device cpu --out " + (dir.path() / "rows.json").string() + " --data-root " +
                (dir.path() / "data").string() + " data.verify=off text.max_len=64 train.batch_size=8");
  ::unsetenv("REPRO_CACHE");
  INFO(rows.output);
  REQUIRE(rows.exit_code == 0);
  CHECK(nlohmann::json::parse(read_file(dir.path() / "rows.json"))["results"].size() == 3);
  // --datasets and --rows pick the grid's part as `repro run` does (synthetic data: nothing read).
  const Result picked =
      run_repro("bench " + spec + " --datasets rotten_tomatoes --rows 'Transformer,DGT x2' --steps 1 " +
                "--warmup 1 --eval-batches 1 --device cpu --out " + (dir.path() / "picked.json").string() +
                " text.max_len=16 train.batch_size=4");
  INFO(picked.output);
  REQUIRE(picked.exit_code == 0);
  const auto picked_results = nlohmann::json::parse(read_file(dir.path() / "picked.json"))["results"];
  REQUIRE(picked_results.size() == 2);
  CHECK(picked_results[0]["model_config"] == "Transformer");
  CHECK(picked_results[1]["model_config"] == "DGT x2");
  CHECK(picked_results[1]["dataset"] == "rotten_tomatoes");
  size_t loads = 0;
  for (size_t at = rows.output.find("loading rotten_tomatoes"); at != std::string::npos;
       at = rows.output.find("loading rotten_tomatoes", at + 1))
    ++loads;
  CHECK(loads == 1);
  CHECK(real["data"].get<std::string>().rfind("real: ", 0) == 0);
  CHECK(synthetic["data"] == "synthetic");
  CHECK(synthetic["tokens_per_example"] == 64);            // every synthetic sequence is full length
  CHECK(real["tokens_per_example"].get<int64_t>() <= 12);  // <cls> + at most 10 words, trimmed per batch
  CHECK(real["tokens_per_example"].get<int64_t>() >= 2);
  CHECK(real["epoch_seconds"].get<double>() > 0);  // one epoch of the real split
  CHECK(real["forward_flops_per_example"].get<double>() < synthetic["forward_flops_per_example"].get<double>());
}

TEST_CASE("repro data info takes the dataset name and then data.* settings", "[cli]") {
  test::TempDir dir("datainfo");
  test::write_fashion_fixture(dir.path() / "data", 60, 20);
  const Result result = run_repro("data info fashion_mnist data.train_limit=30 data.verify=off --data-root " +
                                  (dir.path() / "data").string());
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.output, Contains("train: 30 examples"));
  // The line said before the files are read (issue 64: minutes of silence on a busy machine), and a class by name.
  CHECK_THAT(result.output, Contains("fashion_mnist: reading its files under "));
  std::vector<std::pair<std::string, std::string>> posts;  // 20 + 20 training posts; 1 + 2 test posts
  for (int i = 0; i < 43; ++i)
    posts.emplace_back("20news-bydate-" + std::string(i < 40 ? "train" : "test") + "/" +
                           ((i < 40 ? i % 2 == 0 : i == 40) ? "alt.atheism/" : "sci.space/") + std::to_string(i),
                       "From: a@b\n\nwords of post " + std::to_string(i) + "\n");
  test::write_tar(dir.path() / "data/20newsgroups/20news-bydate.tar.gz", posts);
  const Result groups = run_repro("data info newsgroups data.verify=off --data-root " + (dir.path() / "data").string());
  INFO(groups.output);
  CHECK(groups.exit_code == 0);
  CHECK_THAT(groups.output, Contains("test: 3 examples") && Contains("majority class 1 (sci.space): 66.67%"));
  // Its periodic lines: the share done and the time left at the pace so far.
  CHECK(progress_text("reading 20news-bydate.tar.xz", 2, 5, 20) ==
        "reading 20news-bydate.tar.xz: 40% (about 30 s left)");
  CHECK(progress_text("encoding 10 texts", 0, 10, 3) == "encoding 10 texts: 0%");
  CHECK(progress_text("encoding 10 texts", 10, 10, 3) == "encoding 10 texts: 100%");
}

TEST_CASE("--datasets and --rows plan one part of a grid; plan.json keeps the other parts", "[cli]") {
  const std::string table2 = std::string(REPRO_SOURCE_DIR) + "/experiments/table2.yaml --profile smoke";
  test::TempDir dir("cli-select");
  const std::string out = " --out " + (dir.path() / "none").string();
  // status of a spec expands the grid without data: 8 rows x 2 datasets x 1 seed, then the selected parts.
  const Result nothing = run_repro("status " + table2 + out);
  CHECK_THAT(nothing.output, Contains("16 runs: 0 complete") && Contains("nothing has started") &&
                                 Contains("does not exist (is --out right?)") && !Contains("pending     "));
  CHECK_THAT(run_repro("status " + table2 + " --datasets rotten_tomatoes" + out).output,
             Contains("8 runs: 0 complete"));
  const Result two_rows = run_repro("status " + table2 + " --datasets ag_news --rows 'Transformer,DGT x2' --all" + out);
  CHECK_THAT(two_rows.output, Contains("2 runs: 0 complete") && Contains("ag_news/Transformer/seed_0") &&
                                  Contains("ag_news/DGT_x2/seed_0") && !Contains("rotten_tomatoes"));
  // Names are checked against the grid (after the profile), with the names it has and the closest one.
  const Result not_in_profile = run_repro("status " + table2 + " --datasets imdb" + out);
  CHECK(not_in_profile.exit_code != 0);
  CHECK_THAT(not_in_profile.output, Contains("--datasets 'imdb': not one of the datasets of the table2/smoke grid "
                                             "(rotten_tomatoes, ag_news)"));
  const Result typo = run_repro("run " + table2 + " --datasets rotten_tomatos --dry-run" + out);
  CHECK(typo.exit_code != 0);
  CHECK_THAT(typo.output, Contains("did you mean 'rotten_tomatoes'?"));
  const Result bad_row = run_repro("run " + table2 + " --rows Transfomer --dry-run" + out);
  CHECK(bad_row.exit_code != 0);
  CHECK_THAT(bad_row.output, Contains("--rows 'Transfomer'") && Contains("DIFF Transformer x16/3") &&
                                 Contains("did you mean 'Transformer'?"));
  CHECK(run_repro("launch slurm " + table2 + " --rows '' --dry-run" + out).exit_code != 0);
  // One word per option: a setting after --rows / --datasets is a setting, not another row; repeating the option
  // adds to the list.
  const Result then_setting =
      run_repro("status " + table2 + " --rows Transformer model.dim=64 --datasets ag_news --rows 'DGT x2' --all" + out);
  INFO(then_setting.output);
  CHECK_THAT(then_setting.output, Contains("2 runs: 0 complete") && Contains("ag_news/Transformer/seed_0") &&
                                      Contains("ag_news/DGT_x2/seed_0"));

  // Trained row by row (the second with --jobs 2: its children plan the same part): one table of both rows.
  test::write_fashion_fixture(dir.path() / "data", 600, 300);
  const std::string smoke = std::string(REPRO_SOURCE_DIR) + "/experiments/smoke.yaml data.verify=off --data-root " +
                            (dir.path() / "data").string() + " --out " + (dir.path() / "runs").string();
  const Result first = run_repro("run " + smoke + " --rows vit --threads 1");
  INFO(first.output);
  REQUIRE(first.exit_code == 0);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "runs/smoke/fashion_mnist/vit-mlp4"));
  const Result second = run_repro("run " + smoke + " --rows vit-mlp4 --jobs 2 --threads-per-job 1");
  INFO(second.output);
  REQUIRE(second.exit_code == 0);
  CHECK_THAT(second.output, Contains("| vit |") && Contains("| vit-mlp4 |"));
  const auto plan = nlohmann::json::parse(read_file(dir.path() / "runs/smoke/plan.json"));
  REQUIRE(plan["runs"].size() == 4);
  CHECK(plan["runs"][0]["dir"] == "fashion_mnist/vit/seed_0");  // grid order, however it was assembled
  CHECK(plan["runs"][3]["dir"] == "fashion_mnist/vit-mlp4/seed_1");
  CHECK(plan["runs"][3]["row_index"] == 1);
  // The whole grid is now finished: nothing trains.
  CHECK_THAT(run_repro("run " + smoke).output, Contains("4 of 4 runs were already finished"));
}

// `repro sweep --seeds` and `--set` plan a part of the grid too: seeds and sweep values added by later commands join
// the plan (results/table2/weight_decay lost its seed-0 entries to a --seeds 1,2,3,4 sweep before 0.7.1). A command
// that plans the whole grid still rewrites it, and a selected part drops its own stale entries.
TEST_CASE("sweep --seeds and --set keep the earlier plan's other seeds and sweep values in plan.json", "[cli]") {
  test::TempDir dir("cli-plan-seeds");
  test::write_text(dir.path() / "grid.yaml", R"(experiment: grid
datasets: [fashion_mnist]
seeds: [0, 1, 2]
models:
  - {name: a, model: {preset: vit, dim: 16, depth: 1, heads: 2, patch: 7}}
  - {name: b, model: {preset: vit, dim: 16, depth: 1, heads: 2, patch: 7}}
)");
  const fs::path out = dir.path() / "runs";
  const auto plan_with = [&](const std::optional<std::string>& seeds, const std::vector<std::string>& axes,
                             const std::vector<std::string>& rows) {
    Experiment experiment = load_spec((dir.path() / "grid.yaml").string(), {}, "", {}, rows);
    apply_sweep_arguments(experiment, seeds, axes);
    write_plan(experiment, expand_grid(experiment, dataset_catalog()), out);
    std::set<std::string> dirs;
    for (const auto& entry : read_plan_record(out / "grid/plan.json").runs) dirs.insert(entry.dir_in_plan());
    return dirs;
  };
  const std::string a_x1 = "fashion_mnist/a+lr=0.001/seed_", a_x2 = "fashion_mnist/a+lr=0.002/seed_";
  CHECK(plan_with("0", {"train.lr=0.001"}, {"a"}) == std::set<std::string>{a_x1 + "0"});
  // Other seeds, then another sweep value: both earlier entries stay.
  CHECK(plan_with("1,2", {"train.lr=0.001"}, {"a"}) == std::set<std::string>{a_x1 + "0", a_x1 + "1", a_x1 + "2"});
  CHECK(plan_with("1", {"train.lr=0.002"}, {"a"}) ==
        std::set<std::string>{a_x1 + "0", a_x1 + "1", a_x1 + "2", a_x2 + "1"});
  // Two values at once shift b's row_index (a has two configurations now); b's other seed takes the new one.
  plan_with("0", {"train.lr=0.001"}, {"b"});
  plan_with("1", {"train.lr=0.001,0.002"}, {"b"});
  for (const auto& entry : read_plan_record(out / "grid/plan.json").runs)
    if (entry.model_config == "b+lr=0.001") CHECK(entry.row_index == 2);
  // The spec's seeds with the same value: a selection by its --set, so the other value's seed stays.
  CHECK(plan_with(std::nullopt, {"train.lr=0.001"}, {"a"}).count(a_x2 + "1"));
  // The whole grid (no --rows, --seeds or --set): rewritten with its own 6 runs.
  const auto whole = plan_with(std::nullopt, {}, {});
  CHECK(whole.size() == 6);
  CHECK(whole.count("fashion_mnist/b/seed_2"));
  CHECK_FALSE(whole.count(a_x1 + "0"));
}

// 12 runs used to repeat the same data notes 12 times; now each is said once per command, and every run's
// log.txt still has it. In process and with --jobs 2 (whose children each say it once).
TEST_CASE("a data note is said once per command, in-process and with --jobs; each log.txt keeps it", "[cli]") {
  test::TempDir dir("cli-notes");
  test::write_bytes(dir.path() / "data/ag_news/ag_news_csv/test.csv", test::ag_news_csv(80), false);
  test::write_text(dir.path() / "notes.yaml", R"(experiment: notes
datasets: [ag_news]
seeds: [0, 1, 2]
model: {preset: transformer, dim: 16, depth: 1, heads: 2}
data: {missing_train: split_test, verify: off}
text: {max_len: 16}
train: {epochs: 1, batch_size: 16}
)");
  const std::string note = "partial data: ag_news has no train.csv";
  const auto count = [](const std::string& text, const std::string& what) {  // warning lines (the table lists it too)
    size_t n = 0;
    for (const auto& line : split_lines(text))
      n += line.find("[warning]") != std::string::npos && line.find(what) != std::string::npos;
    return n;
  };
  for (const std::string& how : {std::string(" --threads 1"), std::string(" --jobs 2 --threads-per-job 1")}) {
    const std::string out = (dir.path() / ("runs" + std::to_string(how.size()))).string();
    const Result result = run_repro("run " + (dir.path() / "notes.yaml").string() + " --data-root " +
                                    (dir.path() / "data").string() + " --out " + out + how);
    INFO(how << "\n" << result.output);
    REQUIRE(result.exit_code == 0);
    CHECK(count(result.output, note) == 1);
    for (int seed = 0; seed < 3; ++seed)
      CHECK_THAT(read_file(out + "/notes/ag_news/model/seed_" + std::to_string(seed) + "/log.txt"), Contains(note));
  }
}

namespace {

// Every positional of `app` and its subcommands against the long options beside it: newer CLI11 (Debian 13's) throws
// OptionAlreadyAdded when a positional's name is an option's long name, at start-up, before any command runs.
void check_positional_names(CLI::App& app, const std::string& where) {
  for (const CLI::Option* positional : app.get_options()) {
    if (!positional->get_positional() || !positional->get_lnames().empty() || !positional->get_snames().empty())
      continue;
    const std::string name = positional->get_name(true);
    for (const CLI::Option* other : app.get_options()) {
      INFO(where << ": positional '" << name << "'");
      CHECK_FALSE((other != positional && other->check_lname(name)));
    }
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    check_positional_names(*sub, where + " " + sub->get_name());
}

}  // namespace

namespace {

// Each option of `app` and its subcommands, with its command's name.
void each_option(CLI::App& app, const std::function<void(const std::string&, const CLI::Option&)>& visit) {
  for (const CLI::Option* option : app.get_options()) visit(app.get_name(), *option);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) each_option(*sub, visit);
}

}  // namespace

TEST_CASE("every option's --help shows one type hint, not CLI11's type then each check's (issue 64)", "[spec]") {
  CLI::App app{"repro"};
  int exit_code = 0;
  add_commands(app, exit_code);
  std::map<std::string, std::string> hints;  // "run --lanes" -> its hint
  each_option(app, [&](const std::string& command, const CLI::Option& option) {
    const std::string hint = option.get_type_name();
    INFO(command << " " << option.get_name() << ": " << hint);
    CHECK(hint.find(':') == std::string::npos);  // "INT:INT ≥ 1:INT in [1 - 64]" before
    CHECK(hint.find("≥") == std::string::npos);  // ASCII: CLI11 pads the columns by bytes
    hints[command + " " + option.get_name()] = hint;
  });
  CHECK(hints.at("run --lanes") == "INT in 1-64");
  CHECK(hints.at("run --threads") == "INT >= 0");
  CHECK(hints.at("run --time-limit") == "MINUTES > 0");
  CHECK(hints.at("run --device") == "{auto,cpu,cuda}");
  CHECK(hints.at("bench --start-at") == "UNIX_TIME >= 0");
  CHECK(hints.at("bench --lanes") == "INT in 1-64");
}

TEST_CASE("no positional shares its name with a long option (newer CLI11 aborts at start-up on one)", "[spec]") {
  CLI::App app{"repro"};
  int exit_code = 0;
  add_commands(app, exit_code);
  check_positional_names(app, "repro");
  CHECK(app.get_subcommands([](CLI::App*) { return true; }).size() == 12);
}
