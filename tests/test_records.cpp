// The record layer (src/record/): each record type's writer and reader round-trip; every record committed
// under results/ (written by older repro versions) is still read; each corrupt field is refused with one line
// naming the file and the field; and no file outside src/record/ reads a record field by its key.
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>

#include "catch.h"
#include "fixtures.h"
#include "paths.h"
#include "record/eval_record.h"
#include "record/folder.h"
#include "record/json_fields.h"
#include "record/lock_record.h"
#include "record/plan_record.h"
#include "record/run_id_fields.h"
#include "record/run_record.h"
#include "record/task_plan.h"
#include "run/device.h"
#include "util/files.h"
#include "util/strings.h"

using namespace repro;
namespace fs = std::filesystem;
using nlohmann::json;
using repro::test::Contains;

namespace {

RunRecord complete_record() {
  RunRecord r;
  r.status = RunState::Complete;
  r.experiment = "table2", r.profile = "paper", r.model_config = "DGT x2+lr=0.001", r.dataset = "rotten_tomatoes";
  r.row = "DGT x2", r.sweep = {{"lr", "0.001"}};
  r.row_index = 4, r.seed = 3;
  r.environment = {{"git_commit", "abc"}, {"device", "cuda:0"}};
  r.device = {"NVIDIA H100 80GB HBM3", "580.159.04", "12.4", "9.0", "bf16", true};
  r.git_commit = "abc";
  r.trained = true;
  r.epochs_planned = 10, r.epochs_run = 10;
  r.selection = {"best_val", 6};
  r.params = 3930000;
  r.param_breakdown = {{"attention", 1000}, {"embeddings", 2000}};
  r.data = {8529, 1067, 1066, false, {"a note"}};  // every count distinct: a count read or written as another fails
  r.wall_seconds = 1234.5;
  r.resumed_from_epoch = 3;
  r.finished_at = "2026-11-26T12:00:00Z";
  r.selected = RecordedEpoch{
      6, {{Metric::TestAcc, 76.5}, {Metric::ValAcc, 77.25}, {Metric::TrainLoss, 0.125}, {Metric::ValLoss, {}}}};
  r.final = RecordedEpoch{10, {{Metric::TestAcc, 75.0}, {Metric::ValAcc, 76.0}}};
  r.model_file = ModelFileRecord{"model.pt", 6, "best_val"};
  return r;
}

void check_same(const RunRecord& a, const RunRecord& b) {
  CHECK(run_record_json(a) == run_record_json(b));  // every field, through the one writer
  CHECK(b.status == a.status);
  CHECK(b.seed == a.seed);
  CHECK(b.profile == a.profile);
  CHECK(b.row == a.row);
  CHECK((b.sweep == a.sweep));
  CHECK(b.selected.has_value() == a.selected.has_value());
  if (a.selected && b.selected) {
    CHECK(b.selected->epoch == a.selected->epoch);
    CHECK((b.selected->metrics == a.selected->metrics));
  }
  CHECK(b.data.notes == a.data.notes);
  CHECK((b.param_breakdown == a.param_breakdown));
  CHECK(b.device == a.device);
}

// Every file called `name` below results/.
std::vector<fs::path> committed(const std::string& name) {
  std::vector<fs::path> found;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(REPRO_SOURCE_DIR) / "results"))
    if (entry.is_regular_file() && entry.path().filename() == name) found.push_back(entry.path());
  return found;
}

}  // namespace

TEST_CASE("run records round-trip through the one writer and reader, complete and failed", "[report]") {
  test::TempDir dir("records-roundtrip");
  const fs::path path = dir.path() / "summary.json";
  const RunRecord complete = complete_record();
  write_run_record(path, complete);
  const RunRecord read = read_run_record(path);
  check_same(complete, read);
  CHECK(read.version == kRunRecordVersion);
  CHECK(read.data.train == 8529);
  CHECK(read.data.val == 1067);
  CHECK(read.data.test == 1066);
  const json written = json::parse(read_file(path));  // the keys the file holds, as docs and results/ read them
  CHECK(written["data"]["train"] == 8529);
  CHECK(written["data"]["val"] == 1067);
  CHECK(written["data"]["test"] == 1066);
  CHECK(written["selection"]["epoch"] == 6);
  CHECK(written["selected"]["epoch"] == 6);
  CHECK(written["final"]["epoch"] == 10);
  CHECK(written["epochs_planned"] == 10);
  CHECK(written["resumed_from_epoch"] == 3);
  CHECK_FALSE(read.selected->metrics.at(Metric::ValLoss).has_value());  // null: not measured

  RunRecord failed;
  failed.status = RunState::Failed;
  failed.message = "data: missing file";
  failed.experiment = "t", failed.model_config = "vit", failed.dataset = "fashion_mnist", failed.seed = 1;
  failed.environment = json::object();
  write_run_record(path, failed);
  const RunRecord failed_read = read_run_record(path);
  check_same(failed, failed_read);
  CHECK_FALSE(failed_read.trained);
  CHECK(failed_read.message == "data: missing file");
  CHECK_FALSE(json::parse(read_file(path)).contains("selected"));  // a failed run has no training fields
}

TEST_CASE("a record's environment names its device, and its GPU where one was recorded", "[report]") {
  RunRecord record;
  record.environment = {{"device", "cuda:0"}, {"gpu", "NVIDIA H100 80GB HBM3, 81559 MiB"}, {"libtorch", "2.11.0"}};
  CHECK(environment_summary(record) == "cuda:0 (NVIDIA H100 80GB HBM3, 81559 MiB), LibTorch 2.11.0");
  record.environment = {{"device", "cuda:0"}, {"libtorch", "2.11.0"}};  // before 0.7.0
  CHECK(environment_summary(record) == "cuda:0, LibTorch 2.11.0");
  record.environment = {{"device", "cpu"}, {"gpu", nullptr}};
  CHECK(environment_summary(record) == "cpu, LibTorch ?");
  const nlohmann::json here = environment_record(torch::kCPU);  // the CPU: no GPU to name
  REQUIRE(here.contains("gpu"));
  CHECK(here["gpu"].is_null());
  CHECK(here["device"] == "cpu");
}

TEST_CASE("where a run ran: the GPU's identity, precision and CUDA graphs in the environment, null in older records",
          "[report]") {
  test::TempDir dir("records-identity");
  const fs::path path = dir.path() / "summary.json";
  const RunRecord gpu = complete_record();
  write_run_record(path, gpu);
  const json written = json::parse(read_file(path));
  CHECK(written["environment"]["gpu_name"] == "NVIDIA H100 80GB HBM3");
  CHECK(written["environment"]["compute_capability"] == "9.0");
  CHECK(written["environment"]["cuda_graphs"] == true);
  CHECK(written["environment"]["device"] == "cuda:0");  // the rest of the environment kept beside them
  CHECK(read_run_record(path).device == gpu.device);
  // A CPU run's: no GPU, fp32, no graphs.
  RunRecord cpu = complete_record();
  cpu.environment = environment_record(torch::kCPU);
  cpu.device = read_device_identity(cpu.environment, "environment");
  CHECK(cpu.device == DeviceIdentity{});  // run/device fills the GPU's fields only, and null on the CPU
  cpu.device.precision = "fp32";
  cpu.device.cuda_graphs = false;
  write_run_record(path, cpu);
  const RunRecord cpu_read = read_run_record(path);
  CHECK(cpu_read.device == cpu.device);
  CHECK(json::parse(read_file(path))["environment"]["gpu_name"].is_null());
  // A record written before these fields: every field null.
  json old = written;
  for (const char* key :
       {"gpu_name", "driver_version", "cuda_runtime", "compute_capability", "precision", "cuda_graphs"})
    old["environment"].erase(key);
  write_file_atomic(path, old.dump(2));
  CHECK(read_run_record(path).device == DeviceIdentity{});
  // The driver's version as /proc/driver/nvidia/version says it, proprietary and open kernel modules.
  CHECK(parse_nvidia_driver_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Sun Oct  5 2025") ==
        std::optional<std::string>("580.159.04"));
  CHECK(parse_nvidia_driver_version(
            "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build") ==
        std::optional<std::string>("570.86.15"));
  CHECK_FALSE(parse_nvidia_driver_version("no driver here").has_value());
}

TEST_CASE("a lock file's holder round-trips; an empty or damaged one is an unknown holder", "[report]") {
  const LockHolder holder{"node7", 12, "42", "2026-11-26T12:00:00Z"};
  const LockHolder read = read_lock_holder(lock_holder_text(holder));
  CHECK(read.describe() == "node7:12 (SLURM job 42)");
  CHECK(read.since == holder.since);
  CHECK(read_lock_holder("").describe() == "?:0");
  CHECK(read_lock_holder("{\"host\": 5}").describe() == "?:0");  // damaged: never fatal
}

TEST_CASE("plan and eval records round-trip", "[report]") {
  test::TempDir dir("records-plan-eval");
  PlanRecord plan{"table2", "paper", "experiments/table2.yaml", "Table 2", "Transformer", {}};
  PlanEntry entry;
  entry.id() = RunId{"table2", "paper", "newsgroups", "DGT x2", "DGT x2", {{"lr", "0.001"}}, 0};
  entry.row_index = 4;
  plan.runs.push_back(entry);
  write_plan_record(dir.path() / "plan.json", plan);
  const PlanRecord plan_read = read_plan_record(dir.path() / "plan.json");
  CHECK(plan_read.experiment == "table2");
  CHECK(plan_read.report_baseline == "Transformer");
  REQUIRE(plan_read.runs.size() == 1);
  CHECK(plan_read.runs[0].dir_in_plan() == "newsgroups/DGT_x2/seed_0");
  CHECK((plan_read.runs[0].sweep == plan.runs[0].sweep));
  CHECK(plan_read.runs[0].row_index == 4);
  CHECK(plan_read.runs[0].id() == entry.id());  // experiment and profile from the plan's header
  // "dir" follows from the identity: another folder is refused, naming the field.
  std::string text = read_file(dir.path() / "plan.json");
  text.replace(text.find("newsgroups/DGT_x2/seed_0"), 24, "newsgroups/DGT_x4/seed_0");
  test::write_text(dir.path() / "plan.json", text);
  CHECK_THROWS_WITH(read_plan_record(dir.path() / "plan.json"),
                    Contains("'runs[0].dir' is \"newsgroups/DGT_x4/seed_0\", expected 'newsgroups/DGT_x2/seed_0'"));

  EvalRecord eval;
  eval.name = "noise", eval.split = "test", eval.experiment = "t", eval.model_config = "vit", eval.seed = 2;
  eval.model_file = "model.pt", eval.model_epoch = 3, eval.model_rule = "best_val";
  eval.levels_key = "data.noise.level", eval.levels_values = {"0.1", "0.2"};
  eval.points.push_back(
      {"0.1", {{"data.noise.level", "0.1"}, {"data.noise.kind", "gaussian"}}, 0.5, 80.0, 100, true, {"partial"}});
  eval.points.push_back({"0.2", {{"data.noise.level", "0.2"}}, std::nullopt, std::nullopt, 100, false, {}});
  eval.environment = json::object();
  const fs::path eval_path = RunFolder(dir.path()).eval_path("noise");
  write_eval_record(eval_path, eval);
  const EvalRecord eval_read = read_eval_record(eval_path);
  CHECK(eval_read.levels_key == "data.noise.level");
  REQUIRE(eval_read.points.size() == 2);
  CHECK(eval_read.points[0].acc.value_or(-1) == 80.0);
  CHECK(eval_read.points[0].setting("data.noise.kind").value_or("") == "gaussian");
  CHECK_FALSE(eval_read.points[1].acc.has_value());
  CHECK_FALSE(eval_read.recorded_epoch.has_value());
}

TEST_CASE("RunId: one folder layout and one key; from_dir reads a run folder's last three components", "[report]") {
  const RunId id{"table2", "paper", "newsgroups", "DGT x2+lr=0.001", "DGT x2", {{"lr", "0.001"}}, 3};
  CHECK(RunId::compose_model_config("DGT x2", {{"lr", "0.001"}}) == id.model_config);
  CHECK(id.folder() == "table2/paper");
  CHECK(id.subdir() == "newsgroups/DGT_x2+lr=0.001/seed_3");
  CHECK(id.dir() == "table2/paper/newsgroups/DGT_x2+lr=0.001/seed_3");
  CHECK(id.key() == "table2/paper/newsgroups/DGT x2+lr=0.001/seed_3");  // model.pt's owner: unchanged since 0.5
  RunId no_profile = id;
  no_profile.profile = "";
  CHECK(no_profile.dir() == "table2/newsgroups/DGT_x2+lr=0.001/seed_3");
  const auto read = RunId::from_dir("/r/table2/paper/newsgroups/DGT_x2/seed_12", "table2", "paper");
  REQUIRE(read.has_value());
  CHECK(read->dataset == "newsgroups");
  CHECK(read->model_config == "DGT_x2");
  CHECK(read->seed == 12);
  CHECK(read->folder() == "table2/paper");  // the profile is the caller's, never a path component taken for it
  for (const char* bad : {"/r/x/seed_", "/r/x/seed_1a", "/r/x/seeds_1", "/r/x/seed_99999999999999999999"})
    CHECK_FALSE(RunId::from_dir(bad, "e", "").has_value());
}

// Issue 59: every format that carries a run's identity writes and reads it through record/run_id_fields.h.
TEST_CASE("a run's identity: one writer and reader of its fields in JSON and in spec.resolved.yaml's header",
          "[report]") {
  const RunId id{"table2", "paper", "newsgroups", "DGT x2+lr=0.001", "DGT x2", {{"lr", "0.001"}}, 3};
  const RunIdFields all{};
  const json whole = run_id_json(id, all);
  CHECK(whole == json{{"experiment", "table2"},
                      {"profile", "paper"},
                      {"model_config", "DGT x2+lr=0.001"},
                      {"row", "DGT x2"},
                      {"sweep", json::array({json::array({"lr", "0.001"})})},
                      {"dataset", "newsgroups"},
                      {"seed", 3}});
  RunId read;
  read_run_id(JsonFields(whole, "f.json"), read, all);
  CHECK((read == id && read.row == id.row && read.sweep == id.sweep));
  // A plan's header and entries split the fields; an eval record's "run" has no row and sweep values.
  const RunIdFields header{Presence::Required, Presence::Optional, Presence::Absent, Presence::Absent};
  CHECK(run_id_json(id, header) == json{{"experiment", "table2"}, {"profile", "paper"}});
  const RunIdFields eval{Presence::Optional, Presence::Optional, Presence::Optional, Presence::Absent};
  CHECK(run_id_json(id, eval).count("row") == 0);
  RunId known_little;
  read_run_id(JsonFields(json{{"model_config", "m"}}, "e.json"), known_little, eval);
  CHECK((known_little.model_config == "m" && known_little.dataset.empty() && known_little.seed == 0));
  // A required field missing is named; an optional one absent reads as none.
  json no_seed = whole;
  no_seed.erase("seed");
  CHECK_THROWS_WITH(read_run_id(JsonFields(no_seed, "s.json"), read, all), Contains("s.json: lacks 'seed'"));
  json old = whole;  // a summary.json of 0.7.0: no row, no sweep values
  old.erase("row"), old.erase("sweep");
  read_run_id(JsonFields(old, "s.json"), read, all);
  CHECK((read.row.empty() && read.sweep.empty()));
  const RunIdFields frozen{Presence::Absent, Presence::Absent, Presence::Required, Presence::Required};
  CHECK_THROWS_WITH(read_run_id(JsonFields(old, "tasks.json"), read, frozen), Contains("lacks 'row'"));

  // spec.resolved.yaml's header: its lines read back into the identity (row and sweep are model_config's there).
  const std::string text = run_id_yaml_header(id);
  CHECK(text ==
        "experiment: table2\nprofile: paper\nmodel_config: \"DGT x2+lr=0.001\"\ndataset: newsgroups\nseed: 3\n");
  RunId from_yaml;
  for (const std::string& line : split_lines(text)) {
    const auto colon = line.find(": ");
    CHECK(is_run_id_field(line.substr(0, colon)));
    read_run_id_line(from_yaml, line.substr(0, colon), line.substr(colon + 2), "spec.resolved.yaml:1");
  }
  CHECK(from_yaml == id);
  CHECK_FALSE(is_run_id_field("model"));
  CHECK_THROWS_WITH(read_run_id_line(from_yaml, "seed", "x", "spec.resolved.yaml:5"),
                    Contains("spec.resolved.yaml:5: seed: expected a whole number, got 'x'"));
}

// No identity field is spelled outside record/run_id_fields.cpp: written as a JSON pair ({"seed", seed},
// out["seed"] = ...), as a header line ("seed: "), or read by name (.text("seed"), key == "seed").
TEST_CASE("outside record/run_id_fields.cpp no code writes or reads a run's identity field by its name", "[report]") {
  const std::string field = "(experiment|profile|model_config|dataset|seed|row|sweep)";
  const std::string header_field = "(experiment|profile|model_config|dataset|seed)";  // spec.resolved.yaml's
  const std::regex spelled(R"(\{\s*")" + field + R"re("\s*,\s*[^"\s{])re" + R"(|\[\s*")" + field +
                           R"re("\s*\]\s*=[^=]|")re" + header_field +
                           R"(: |(\.|->)(text|optional_text|integer|optional_integer|at|value)\(\s*")" + field +
                           R"re("|==\s*")re" + header_field + "\"");
  const std::map<std::string, std::string> allowed = {
      {"record/run_id_fields.cpp", "the one writer and reader"},
      {"spec/experiment.cpp", "the spec file's own keys (experiment:, profiles:), not a run's identity"},
      {"report/claims/paper_file.cpp", "a paper file's own keys (a table's experiment, a cell's row)"},
      {"cli/rollout_text.cpp", "the rollout figure's index.json: which runs' maps it shows, for people"},
      {"cli/cmd_rollout.cpp", "the rollout figure's index.json: which runs' maps it shows, for people"},
      {"bench/bench.cpp", "repro bench's result rows: the configuration timed, for people"},
      {"cli/cmd_bench.cpp", "repro bench's report: the spec and profile it timed, for people"},
  };
  int files = 0;
  const std::vector<std::string> found = test::source_lines_matching(spelled, allowed, &files);
  CHECK(files > 150);
  INFO(join(found, "\n"));
  CHECK(found.empty());
  // The check finds the writers and readers that were (before issue 59).
  for (const char* line : {R"(  json out = {{"record_version", r.version}, {"experiment", r.experiment},)",
                           R"(                    {"seed", e.seed}});)", R"(  out["model_config"] = id.model_config;)",
                           R"(  out += "experiment: " + experiment + "\n";)", R"(  r.seed = s.integer("seed");)",
                           R"(    r.profile = run->optional_text("profile").value_or("");)",
                           R"(  if (key == "model_config") spec.model_config = unquote(value);)"})
    CHECK(std::regex_search(std::string(line), spelled));
  CHECK_FALSE(std::regex_search(std::string(R"(  page_table("references", {"row", "dataset", "ours"});)"), spelled));
}

TEST_CASE("tasks.json: a frozen plan round-trips; a task past the end and a mismatched entry are refused", "[report]") {
  test::TempDir dir("records-tasks");
  TaskPlan plan;
  plan.experiment = "e", plan.profile = "", plan.spec_file = "/s.yaml", plan.runs_per_task = 2;
  for (int64_t seed = 0; seed < 3; ++seed) {
    TaskEntry entry;
    entry.id() = RunId{"e", "", "fashion_mnist", "vit+lr=0.01", "vit", {{"lr", "0.01"}}, seed};
    entry.row_index = 1, entry.position = 5 + seed, entry.resolved_spec = "experiment: e\n";
    plan.runs.push_back(entry);
  }
  const fs::path path = dir.path() / "tasks.json";
  write_task_plan(path, plan);
  const TaskPlan read = read_task_plan(path);
  CHECK(read.tasks() == 2);
  REQUIRE(read.runs.size() == 3);
  CHECK(read.runs[2].id() == plan.runs[2].id());
  CHECK(read.runs[2].position == 7);
  CHECK(read.runs[2].resolved_spec == "experiment: e\n");
  CHECK(read.task(1, path).size() == 1);
  CHECK(read.task(0, path).at(1).seed == 1);
  CHECK_THROWS_WITH(read.task(2, path), Contains("tasks.json: --index 2 is past its 2 task(s) (3 runs, 2 per task)"));
  std::string text = read_file(path);
  text.replace(text.find("\"vit+lr=0.01\""), 13, "\"vit+lr=0.02\"");
  test::write_text(path, text);
  CHECK_THROWS_WITH(read_task_plan(path),
                    Contains("'runs[0].model_config' is \"vit+lr=0.02\", expected its row and sweep values"));
}

TEST_CASE("every record committed under results/ is read by today's reader", "[report]") {
  int runs = 0, plans = 0, evals = 0;
  for (const auto& path : committed("summary.json")) {
    INFO(path.string());
    const RunRecord r = read_run_record(path);
    CHECK(is_recorded_state(r.status));
    if (r.status == RunState::Complete) CHECK(r.selected.has_value());
    ++runs;
  }
  for (const auto& path : committed("plan.json")) {
    INFO(path.string());
    CHECK_FALSE(read_plan_record(path).runs.empty());
    ++plans;
  }
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(REPRO_SOURCE_DIR) / "results"))
    if (entry.path().parent_path().filename() == "eval" && entry.path().extension() == ".json") {
      INFO(entry.path().string());
      CHECK_FALSE(read_eval_record(entry.path()).points.empty());
      ++evals;
    }
  CHECK(runs >= 150);  // 168 today
  CHECK(plans >= 5);
  CHECK(evals >= 1);
}

TEST_CASE("a corrupt record field is refused with one line naming the file and the field", "[report]") {
  test::TempDir dir("records-corrupt");
  const fs::path path = dir.path() / "summary.json";
  const json good = run_record_json(complete_record());
  struct Case {
    std::string what;
    std::function<void(json&)> damage;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"no status", [](json& s) { s.erase("status"); }, "lacks 'status'"},
      {"unknown status", [](json& s) { s["status"] = "weird"; },
       "status 'weird', expected complete, diverged or failed"},
      {"seed as text", [](json& s) { s["seed"] = "zero"; }, "'seed' is \"zero\", expected a whole number"},
      {"experiment a number", [](json& s) { s["experiment"] = 3; }, "'experiment' is 3, expected a string"},
      {"metric as text", [](json& s) { s["selected"]["test_acc"] = "abc"; },
       "'selected.test_acc' is \"abc\", expected a number"},
      {"accuracy above 100", [](json& s) { s["final"]["val_acc"] = 250; }, "'final.val_acc' is 250, outside 0-100"},
      {"negative loss", [](json& s) { s["selected"]["train_loss"] = -1; },
       "'selected.train_loss' is -1, outside 0-inf"},
      {"complete without selected", [](json& s) { s.erase("selected"); }, "lacks 'selected'"},
      {"complete with a null final", [](json& s) { s["final"] = nullptr; }, "'final' is null, expected an object"},
      {"partial as text", [](json& s) { s["data"]["partial"] = "no"; },
       "'data.partial' is \"no\", expected true or false"},
      {"notes not a list", [](json& s) { s["data"]["notes"] = 5; }, "'data.notes' is 5, expected a list of strings"},
      {"model_file without epoch", [](json& s) { s["model_file"].erase("epoch"); }, "lacks 'epoch'"},
      {"precision fp16", [](json& s) { s["environment"]["precision"] = "fp16"; },
       "'environment.precision' is \"fp16\", expected bf16 or fp32"},
      {"cuda_graphs as text", [](json& s) { s["environment"]["cuda_graphs"] = "yes"; },
       "'environment.cuda_graphs' is \"yes\", expected true or false"},
      {"gpu_name a number", [](json& s) { s["environment"]["gpu_name"] = 7; },
       "'environment.gpu_name' is 7, expected a string"},
      {"a newer record", [](json& s) { s["record_version"] = 99; },
       "record_version 99 is newer than this repro reads (1)"},
  };
  for (const auto& c : cases) {
    SECTION(c.what) {
      json damaged = good;
      c.damage(damaged);
      write_file_atomic(path, damaged.dump(2));
      CHECK_THROWS_WITH(read_run_record(path), Contains(path.string() + ": ") && Contains(c.message));
    }
  }
  SECTION("not JSON") {
    write_file_atomic(path, "{\"status\": ");
    CHECK_THROWS_WITH(read_run_record(path), Contains(path.string() + ": not valid JSON"));
  }
  SECTION("a plan entry without its folder") {
    const fs::path plan = dir.path() / "plan.json";
    write_file_atomic(plan, R"({"experiment": "t", "runs": [{"model_config": "vit", "dataset": "d", "seed": 0}]})");
    CHECK_THROWS_WITH(read_plan_record(plan), Contains(plan.string() + ": lacks 'dir'"));
  }
  SECTION("an eval point whose accuracy is text") {
    const fs::path eval = dir.path() / "e.json";
    write_file_atomic(eval, R"({"points": [{"label": "x", "acc": "high"}]})");
    CHECK_THROWS_WITH(read_eval_record(eval), Contains("'points[0].acc' is \"high\", expected a number"));
  }
}

// The record layer is the only reader of record fields: outside src/record/ no code looks a record's key up
// (json's .at("k"), .value("k", …), ["k"], .contains("k"), chained or nested like spec["data"]["noise"]). The
// keys are those src/record/ itself reads or writes; the exceptions below read files that are not run records.
TEST_CASE("outside src/record no code reads a run record's field by its key", "[report]") {
  const fs::path src = fs::path(REPRO_SOURCE_DIR) / "src";
  std::set<std::string> record_keys;
  const std::regex key_literal(R"re(\(\s*"([a-z_]+)"|\{\s*"([a-z_]+)"\s*,)re");
  for (const auto& entry : fs::directory_iterator(src / "record")) {
    const std::string text = read_file(entry.path());
    for (std::sregex_iterator it(text.begin(), text.end(), key_literal), end; it != end; ++it)
      record_keys.insert((*it)[1].matched ? (*it)[1].str() : (*it)[2].str());
  }
  CHECK(record_keys.count("status") == 1);
  CHECK(record_keys.count("points") == 1);
  CHECK(record_keys.count("runs") == 1);
  // Files that read other files by key: dataset manifests and sources, the paper files, the rollout index it
  // writes itself, the checkpoint's history.
  const std::set<std::string> not_records = {
      "data/manifest.cpp",        "data/text_sources.cpp",    "data/cifar.cpp",       "report/claims/paper.cpp",
      "report/claims/claims.cpp", "report/claims/ledger.cpp", "cli/rollout_text.cpp", "cli/cmd_rollout.cpp",
      "train/history.cpp",        "util/version.cpp"};
  const std::regex access(R"re((?:\.|->)(?:at|value|contains)\(\s*"([a-z_]+)"|\[\s*"([a-z_]+)"\s*\])re");
  std::vector<std::string> found;
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(src)) {
    if (!entry.is_regular_file()) continue;
    const std::string relative = fs::relative(entry.path(), src).string();
    if (starts_with(relative, "record/") || not_records.count(relative)) continue;
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    for (int number = 1; std::getline(in, line); ++number)
      for (std::sregex_iterator it(line.begin(), line.end(), access), end; it != end; ++it) {
        const std::string key = (*it)[1].matched ? (*it)[1].str() : (*it)[2].str();
        if (record_keys.count(key)) found.push_back(relative + ":" + std::to_string(number) + ": " + line);
      }
  }
  CHECK(files > 150);
  INFO(join(found, "\n"));
  CHECK(found.empty());
}
