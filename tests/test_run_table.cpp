// repro report --runs: one row per run (CSV for pandas, Markdown), and the selectors --datasets, --rows, --seeds
// of report (issue 48), on the committed records of results/table2/paper (35 runs: 7 rows x 5 seeds, Rotten
// Tomatoes).
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "catch.h"
#include "fixtures.h"
#include "run_repro.h"
#include "util/csv.h"
#include "util/files.h"
#include "util/strings.h"

using repro::test::Contains;
namespace fs = std::filesystem;

namespace {

const fs::path kPaperRuns = fs::path(REPRO_SOURCE_DIR) / "results/table2/paper";

// The fields of a CSV line of the --runs table (quoted fields may hold commas).
std::vector<std::string> runs_csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

size_t runs_column(const std::vector<std::string>& header, const std::string& name) {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  FAIL("no column " << name);
  return 0;
}

const std::vector<std::string> kRunsColumns = {
    "experiment", "profile", "dataset", "row", "model_config", "seed", "state", "device", "gpu", "precision", "threads", "blas_core", "aten_capability", "onednn_isa",
    "selected_epoch", "final_epoch", "selected_train_loss", "selected_train_acc", "selected_val_loss",
    "selected_val_acc", "selected_test_loss", "selected_test_acc", "final_train_loss", "final_train_acc",
    "final_val_loss", "final_val_acc", "final_test_loss", "final_test_acc", "wall_seconds", "git_commit", "path",
    "problem"};

}  // namespace

TEST_CASE("report --runs --format csv: one row per run of results/table2/paper, its numbers those of summary.json",
          "[cli][report]") {
  const auto result = repro::test::run_repro("report " + kPaperRuns.string() + " --runs --format csv");
  REQUIRE(result.exit_code == 0);
  const auto lines = repro::split_lines(result.output);
  REQUIRE(lines.size() >= 2);
  const std::vector<std::string> header = runs_csv_fields(lines[0]);
  CHECK(header == kRunsColumns);  // no sweep axes in this folder: no sweep.* column
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 1; i < lines.size(); ++i)
    if (!lines[i].empty()) rows.push_back(runs_csv_fields(lines[i]));
  REQUIRE(rows.size() == 35);
  std::map<bool, int> selected_before_final;
  for (const auto& row : rows) {
    INFO(lines[0] << "\n" << repro::join(row, "|"));
    REQUIRE(row.size() == header.size());
    CHECK(row[runs_column(header, "state")] == "complete");
    CHECK(row[runs_column(header, "dataset")] == "rotten_tomatoes");
    // Every column is summary.json's, as recorded (issue 57: selected_epoch holding the final epoch passed a test
    // that compared four columns; most of these runs select an epoch before the last).
    const fs::path summary = fs::path(row[runs_column(header, "path")]) / "summary.json";
    const auto json = nlohmann::json::parse(repro::read_file(summary));
    const auto column = [&](const std::string& name) { return row[runs_column(header, name)]; };
    for (const char* field : {"experiment", "profile", "dataset", "model_config", "git_commit"})
      CHECK(column(field) == json[field].get<std::string>());
    CHECK(column("state") == json["status"].get<std::string>());
    CHECK(column("device") == json["environment"]["device"].get<std::string>() + ", LibTorch " +
                                  json["environment"]["libtorch"].get<std::string>());
    CHECK(column("gpu").empty());  // CPU records
    CHECK(column("precision").empty());
    // What ordered the sums, as recorded: these records predate ATen's capability and oneDNN's set (empty).
    CHECK(std::stoll(column("threads")) == json["environment"]["threads"].get<int64_t>());
    const auto& environment = json["environment"];
    CHECK(column("blas_core") ==
          (environment.contains("blas_core") ? environment["blas_core"].get<std::string>() : std::string()));
    CHECK(column("aten_capability").empty());
    CHECK(column("onednn_isa").empty());
    CHECK(std::stoll(column("seed")) == json["seed"].get<int64_t>());
    CHECK(std::stod(column("wall_seconds")) == Approx(json["wall_seconds"].get<double>()).epsilon(1e-5));
    for (const std::string epoch : {"selected", "final"}) {
      CHECK(std::stoll(column(epoch + "_epoch")) == json[epoch]["epoch"].get<int64_t>());
      for (const char* metric : {"train_loss", "train_acc", "val_loss", "val_acc", "test_loss", "test_acc"})
        CHECK(std::stod(column(epoch + "_" + metric)) == Approx(json[epoch][metric].get<double>()).epsilon(1e-8));
    }
    CHECK(column("problem").empty());
    ++selected_before_final[json["selected"]["epoch"] != json["final"]["epoch"]];
  }
  CHECK(selected_before_final[true] > 0);  // the columns can tell the two epochs apart
  // Python's csv module reads the same 35 rows with these columns (pandas reads what it reads).
  if (std::system("/usr/bin/python3 -c 'import csv' > /dev/null 2>&1") != 0) {
    WARN("skipped the Python check: no /usr/bin/python3");
    return;
  }
  repro::test::TempDir dir("runs-csv");
  repro::test::write_text(dir.path() / "runs.csv", result.output);
  const auto python = repro::test::run_command(
      "/usr/bin/python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); "
      "print(len(r), len(r[0]), r[0][\"model_config\"], sum(float(x[\"selected_test_acc\"]) > 50 for x in r))' " +
      (dir.path() / "runs.csv").string());
  CHECK(python.exit_code == 0);
  CHECK_THAT(python.output, Contains("35 " + std::to_string(kRunsColumns.size()) + " "));
  CHECK_THAT(python.output, Contains(" 35\n"));
}

TEST_CASE("report --runs: Markdown one line per run; the selectors keep their runs; a name selecting none is refused",
          "[cli][report]") {
  const auto markdown = repro::test::run_repro("report " + kPaperRuns.string() + " --runs --rows Transformer --seeds 0-1");
  REQUIRE(markdown.exit_code == 0);
  INFO(markdown.output);
  CHECK_THAT(markdown.output, Contains("| table2/paper | rotten_tomatoes | Transformer | 0 | complete |"));
  CHECK_THAT(markdown.output, Contains("| table2/paper | rotten_tomatoes | Transformer | 1 | complete |"));
  CHECK_THAT(markdown.output, !Contains("| 2 | complete") && !Contains("| DGT"));
  CHECK_THAT(markdown.output, Contains("2 runs, 2 with a record."));
  // The table itself with a selector: only that row.
  const auto table = repro::test::run_repro("report " + kPaperRuns.string() + " --rows Transformer --no-stats");
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.output, Contains("| Transformer |") && !Contains("| DGT"));
  const auto typo = repro::test::run_repro("report " + kPaperRuns.string() + " --runs --rows Transfomer");
  CHECK(typo.exit_code != 0);
  CHECK_THAT(typo.output, Contains("--rows Transfomer: no run of that row here (rows: ") && Contains("Transformer"));
  const auto dataset = repro::test::run_repro("report " + kPaperRuns.string() + " --datasets imdb");
  CHECK(dataset.exit_code != 0);
  CHECK_THAT(dataset.output, Contains("--datasets imdb: no run of that dataset here (datasets: rotten_tomatoes)"));
  const auto mixed = repro::test::run_repro("report " + kPaperRuns.string() + " --runs --plots");
  CHECK(mixed.exit_code != 0);
  CHECK_THAT(mixed.output, Contains("--runs: one row per run"));
}
