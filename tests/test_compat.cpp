// Compatibility with records written by earlier versions of repro: the committed
// results must stay readable, skippable and reportable (issue "a house to live in":
// the CLI and spec keys stay compatible).
#include "catch.h"
#include <filesystem>

#include "fixtures.h"
#include "run_repro.h"
#include "util/files.h"

using namespace repro;
using repro::test::Contains;

TEST_CASE("committed records of an earlier version are recognised as finished and reported", "[cli]") {
  // results/probes/dgt_init was written before data.verify existed: its spec.resolved.yaml lacks that key.
  const std::filesystem::path source = std::filesystem::path(REPRO_SOURCE_DIR) / "results/probes/dgt_init";
  REQUIRE(std::filesystem::exists(source / "plan.json"));
  REQUIRE_THAT(read_file(source / "newsgroups/DGT_x4__as_Table_2_/seed_0/spec.resolved.yaml"), !Contains("verify"));
  // It also lists keys its run does not read (another variant's: plug_gml), which spec.resolved.yaml leaves out
  // since 0.8.0 (issue 65): the records compare on the keys both read.
  REQUIRE_THAT(read_file(source / "newsgroups/DGT_x4__as_Table_2_/seed_0/spec.resolved.yaml"), Contains("plug_gml"));
  test::TempDir dir("compat");
  std::filesystem::create_directories(dir.path() / "out");
  std::filesystem::copy(source, dir.path() / "out/dgt_init", std::filesystem::copy_options::recursive);
  std::filesystem::create_directories(dir.path() / "no-data");
  const std::string spec = std::string(REPRO_SOURCE_DIR) + "/experiments/probes/dgt_init.yaml";
  // It was also written before train.no_decay, whose default (paper) is not what it ran with: the record's
  // reading (vectors_embeddings, the key's when_absent) must be named for the runs to be the same.
  const std::string out_args =
      " --out " + (dir.path() / "out").string() + " --data-root " + (dir.path() / "no-data").string();
  const auto result = test::run_repro("run " + spec + " train.no_decay=vectors_embeddings" + out_args);
  INFO(result.output);
  CHECK(result.exit_code == 0);
  CHECK_THAT(result.output, Contains("4 of 4 runs were already finished and were skipped"));
  CHECK_THAT(result.output, Contains("8.40") && Contains("19.40") && Contains("13.40"));
  const auto paper_reading = test::run_repro("run " + spec + out_args);
  CHECK(paper_reading.exit_code == 2);
  CHECK_THAT(paper_reading.output,
             Contains("holds a run of a different spec") && Contains("train.no_decay: (absent: ran as vectors_embeddings) -> paper"));

  // A key that is absent from the old file and NOT at its default is a different spec: refused, nothing written.
  const auto changed =
      test::run_repro("run " + spec + " train.no_decay=vectors_embeddings data.verify=warn" + out_args);
  CHECK(changed.exit_code == 2);
  CHECK_THAT(changed.output, Contains("holds a run of a different spec") && Contains("data.verify"));
}

TEST_CASE("report --epoch final tabulates each run's last epoch; a final epoch metrics.csv disagrees with is named",
          "[cli]") {
  // The committed Rotten Tomatoes column (results/table2/paper): the Transformer is 74.69 ± 0.68 at the selected
  // epochs and 74.71 ± 0.61 at the final (10th) ones.
  const std::string records = std::string(REPRO_SOURCE_DIR) + "/results/table2/paper";
  const auto selected = test::run_repro("report " + records);
  const auto final_epoch = test::run_repro("report " + records + " --epoch final");
  INFO(selected.output << final_epoch.output);
  REQUIRE(selected.exit_code == 0);
  REQUIRE(final_epoch.exit_code == 0);
  CHECK_THAT(selected.output, Contains("| Transformer | 74.69 ± 0.68 |") && Contains("at each run's selected epoch"));
  CHECK_THAT(final_epoch.output,
             Contains("| Transformer | 74.71 ± 0.61 |") && Contains("at each run's final epoch (--epoch final)"));
  CHECK(test::run_repro("report " + records + " --epoch last").exit_code != 0);

  // A copy whose summary.json names a final epoch beyond metrics.csv: inconsistent under --epoch final only.
  test::TempDir dir("epoch-final");
  const std::filesystem::path run = dir.path() / "seed_0";
  std::filesystem::copy(records + "/rotten_tomatoes/Transformer/seed_0", run,
                        std::filesystem::copy_options::recursive);
  std::string summary = read_file(run / "summary.json");
  const auto at = summary.find("\"final\":");
  REQUIRE(at != std::string::npos);
  const auto epoch = summary.find("\"epoch\": 10,", at);
  REQUIRE(epoch != std::string::npos);
  summary.replace(epoch, 11, "\"epoch\": 11");
  write_file_atomic(run / "summary.json", summary);
  CHECK_THAT(test::run_repro("report " + dir.path().string()).output, !Contains("inconsistent") && !Contains("corrupt"));
  CHECK_THAT(test::run_repro("report " + dir.path().string() + " --epoch final").output,
             Contains("final epoch 11 is not among the 10 epochs of metrics.csv"));
}
