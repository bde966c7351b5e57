// Spec parsing, validation messages, overrides, grid expansion and docs/spec.md.
#include <set>

#include "catch.h"
#include "cli/listing.h"
#include "models/attention/registry.h"
#include "data/registry.h"
#include "fixtures.h"
#include "run/plan.h"
#include "spec/experiment.h"
#include "spec/grid.h"
#include "spec/keys.h"
#include "spec/run_spec.h"
#include "util/error.h"
#include "util/files.h"

using namespace repro;
using repro::test::Contains;

namespace {

std::string spec_file(const test::TempDir& dir, const std::string& text) {
  const auto path = dir.path() / "spec.yaml";
  test::write_text(path, text);
  return path.string();
}

const char* kValid = R"(experiment: demo
datasets: [fashion_mnist]
seeds: 0-1
model:
  dim: 32
  heads: 2
  ffn: {ratio: 2}
train:
  epochs: 3
  betas: [0.9, 0.98]
models:
  - name: base
  - name: wide
    model: {dim: 64}
    train.lr: 1e-3
)";

}  // namespace

TEST_CASE("a valid spec resolves base, rows and defaults", "[spec]") {
  test::TempDir dir("spec-valid");
  const Experiment e = load_experiment(spec_file(dir, kValid));
  CHECK(e.name == "demo");
  CHECK(e.seeds == std::vector<int64_t>{0, 1});
  const auto runs = expand_grid(e, dataset_catalog());
  REQUIRE(runs.size() == 4);  // 2 rows x 1 dataset x 2 seeds
  CHECK(runs[0].model_config == "base");
  CHECK(runs[0].config.integer("model.dim") == 32);
  CHECK(runs[0].config.real("model.ffn.ratio") == 2.0);
  CHECK(runs[0].config.real_pair("train.betas") == std::pair<double, double>{0.9, 0.98});
  CHECK(runs[0].config.real("train.lr") == Approx(3e-4));  // default
  CHECK(runs[2].model_config == "wide");
  CHECK(runs[2].config.integer("model.dim") == 64);
  CHECK(runs[2].config.real("train.lr") == Approx(1e-3));
  CHECK(runs[3].seed == 1);
  CHECK(runs[3].dir() == "demo/fashion_mnist/wide/seed_1");
}

TEST_CASE("a misspelt key names file, line and the right key", "[spec]") {
  test::TempDir dir("spec-typo");
  const auto path = spec_file(dir, "datasets: [fashion_mnist]\nmodel:\n  atention:\n    kind: vanilla\n");
  CHECK_THROWS_WITH(load_experiment(path), Contains(path + ":3") && Contains("unknown key 'model.atention.kind'") &&
                                               Contains("did you mean 'model.attention.kind'?"));
}

TEST_CASE("wrong types and out-of-range values name the key and what was expected", "[spec]") {
  test::TempDir dir("spec-types");
  CHECK_THROWS_WITH(load_experiment(spec_file(dir, "datasets: [fashion_mnist]\ntrain:\n  epochs: many\n")),
                    Contains("spec.yaml:3") && Contains("key 'train.epochs'") && Contains("got 'many'") &&
                        Contains("expected an integer"));
  CHECK_THROWS_WITH(load_experiment(spec_file(dir, "datasets: [fashion_mnist]\nmodel: {dropout: 1.5}\n")),
                    Contains("key 'model.dropout'") && Contains("[0, 0.99]"));
  CHECK_THROWS_WITH(load_experiment(spec_file(dir, "datasets: [fashion_mnist]\ntrain: {epochs: 2.5}\n")),
                    Contains("key 'train.epochs'"));
  CHECK_THROWS_WITH(load_experiment(spec_file(dir, "datasets: [fashion_mnist]\nmodel: {norm: batchnorm}\n")),
                    Contains("one of layernorm | rmsnorm"));
  CHECK_THROWS_WITH(load_experiment(spec_file(dir, "datasets: [fashion_mnist]\ntrain: {select: best_vall}\n")),
                    Contains("did you mean 'best_val'?"));
  CHECK_THROWS_WITH(load_experiment(spec_file(dir, "datasets: [fashion_mnist]\nmodel: {dim: [1, 2]}\n")),
                    Contains("got a list"));
}

TEST_CASE("top-level keys, datasets and seeds are checked", "[spec]") {
  test::TempDir dir("spec-top");
  CHECK_THROWS_WITH(load_experiment(spec_file(dir, "datasets: [fashion_mnist]\nseed: 3\n")),
                    Contains("unknown top-level key 'seed'") && Contains("did you mean 'seeds'?"));
  CHECK_THROWS_WITH(expand_grid(load_experiment(spec_file(dir, "datasets: [fashion_mnst]\n")), dataset_catalog()),
                    Contains("unknown dataset 'fashion_mnst'") && Contains("did you mean 'fashion_mnist'?"));
  CHECK_THROWS_WITH(load_experiment(spec_file(dir, "model: {dim: 8}\n")), Contains("missing key 'datasets'"));
  CHECK_THROWS_WITH(load_experiment(spec_file(dir, "datasets: [fashion_mnist]\nseeds: 4-1\n")), Contains("seeds"));
  CHECK_THROWS_WITH(load_experiment(spec_file(dir, "datasets: [fashion_mnist]\nmodels:\n  - model: {dim: 8}\n")),
                    Contains("needs a 'name'"));
  CHECK_THROWS_WITH(load_experiment(spec_file(dir, "datasets: [fashion_mnist\n")), Contains("invalid YAML"));
  CHECK_THROWS_WITH(load_experiment((dir.path() / "absent.yaml").string()),
                    Contains("absent.yaml: spec file not found"));
}

TEST_CASE("seed ranges and lists", "[spec]") {
  CHECK(parse_seeds("0-4", "x") == std::vector<int64_t>{0, 1, 2, 3, 4});
  CHECK(parse_seeds("1,3", "x") == std::vector<int64_t>{1, 3});
  CHECK(parse_seeds("7", "x") == std::vector<int64_t>{7});
  CHECK_THROWS_WITH(parse_seeds("a-b", "--seeds"), Contains("--seeds"));
}

TEST_CASE("overrides and sweep axes go through the same validation", "[spec]") {
  CHECK(parse_override("train.epochs=5").raw == "5");
  CHECK_THROWS_WITH(parse_override("train.epochs"), Contains("expected KEY=VALUE"));
  CHECK_THROWS_WITH(parse_override("train.epoch=5"),
                    Contains("override 'train.epoch=5'") && Contains("did you mean 'train.epochs'?"));
  CHECK_THROWS_WITH(parse_override("train.epochs=-1"), Contains("key 'train.epochs'"));
  const SweepAxis axis = parse_axis("model.ffn.ratio=2,4,16/3");
  REQUIRE(axis.values.size() == 3);
  CHECK_THROWS_WITH(parse_axis("model.ffn.ratio=2,x"), Contains("got 'x'"));
  CHECK(parse_axis("train.betas=[0.9,0.99],[0.8,0.9]").values.size() == 2);
  CHECK(parse_axis("train.betas=[0.9,0.99]").values.size() == 1);  // one list value, not an axis in brackets
  // Brackets around the axis of a key that takes one value, as the --set help shows (refused before).
  CHECK(parse_axis("train.lr=[1e-3, 3e-3]").values == std::vector<std::string>{"1e-3", "3e-3"});
  CHECK_THROWS_WITH(parse_axis("seeds=0,1"), Contains("'seeds' is a part of the spec") && Contains("--seeds"));
}

TEST_CASE("grid expansion: rows x axes x datasets x seeds, with precedence", "[spec]") {
  test::TempDir dir("spec-grid");
  Experiment e = load_experiment(spec_file(dir, kValid));
  e.axes.push_back(parse_axis("model.ffn.ratio=2,4,16/3"));
  e.overrides.push_back(parse_override("model.dim=16"));
  e.overrides.push_back(parse_override("model.heads=4"));
  const auto runs = expand_grid(e, dataset_catalog());
  REQUIRE(runs.size() == 2 * 3 * 1 * 2);
  CHECK(runs[0].model_config == "base+ffn.ratio=2");
  CHECK(runs[4].model_config == "base+ffn.ratio=5.333333333");
  CHECK(runs[4].config.real("model.ffn.ratio") == Approx(16.0 / 3.0));
  for (const auto& run : runs) CHECK(run.config.integer("model.dim") == 16);  // override beats the row
  CHECK(runs[6].row_index == 3);
}

TEST_CASE("docs/spec.md is the output of `repro list --format md`", "[spec]") {
  const std::string committed = read_file(std::string(REPRO_SOURCE_DIR) + "/docs/spec.md");
  CHECK(committed == spec_markdown());
}

TEST_CASE("profiles replace datasets, seeds and settings; per_dataset settings apply to one dataset", "[spec]") {
  test::TempDir dir("spec-profiles");
  const auto path = spec_file(dir, R"(experiment: p
datasets: [fashion_mnist, cifar10]
seeds: 0-4
train: {epochs: 100}
per_dataset:
  cifar10: {data.files: test=test_batch.first1000.bin, train.epochs: 50}
profiles:
  short:
    datasets: [cifar10]
    seeds: [0]
    train.epochs: 3
)");
  Experiment e = load_experiment(path);
  CHECK(expand_grid(e, dataset_catalog()).size() == 10);
  CHECK(expand_grid(e, dataset_catalog())[0].config.integer("train.epochs") == 100);  // fashion_mnist
  CHECK(expand_grid(e, dataset_catalog())[5].config.integer("train.epochs") == 50);   // cifar10: per_dataset
  CHECK(expand_grid(e, dataset_catalog())[5].config.text("data.files") == "test=test_batch.first1000.bin");
  CHECK_THROWS_WITH(e.choose_profile("long"), Contains("--profile long") && Contains("the profiles short"));
  e.choose_profile("short");
  const auto runs = expand_grid(e, dataset_catalog());
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].config.integer("train.epochs") == 3);  // the profile beats per_dataset
  CHECK(runs[0].dir() == "p/short/cifar10/model/seed_0");
  CHECK_THAT(runs[0].resolved_yaml(), Contains("profile: short"));
  CHECK_THROWS_WITH(load_experiment(spec_file(dir, "datasets: [fashion_mnist]\nprofiles:\n  s: {train.epoch: 1}\n")),
                    Contains("spec.yaml:3") && Contains("did you mean 'train.epochs'?"));
  CHECK_THROWS_WITH(expand_grid(load_experiment(spec_file(
                                    dir, "datasets: [fashion_mnist]\nper_dataset:\n  cifar: {train.epochs: 1}\n")),
                                dataset_catalog()),
                    Contains("spec.yaml:3") && Contains("unknown dataset 'cifar'"));
}

namespace {

// What a --jobs child or a SLURM task trains is its run read back from the resolved spec frozen in tasks.json
// (run/plan.cpp: plan_of_task): every run of every grid must read back to exactly its settings.
void check_resolved_specs_read_back(const std::vector<PlannedRun>& runs) {
  for (const auto& run : runs) {
    INFO(run.key());
    const RunSpec back = parse_run_spec(run.resolved_yaml(), "resolved");
    CHECK(back.id() == run.id());
    CHECK(back.config.to_yaml() == run.config.to_yaml());
  }
}

}  // namespace

TEST_CASE("a resolved spec without a key added with a new behaviour reads as what its run ran with", "[spec]") {
  // results/table2/paper's Rotten Tomatoes records were written before train.no_decay existed (0.3.0): they ran
  // with what the key now calls vectors_embeddings, not with its default (paper).
  const std::string head = "experiment: table2\nprofile: paper\ndataset: rotten_tomatoes\nmodel_config: T\nseed: 0\n";
  const RunSpec old = parse_run_spec(head + "train:\n  lr: 0.0005\n", "old");
  CHECK(old.config.text("train.no_decay") == "vectors_embeddings");
  CHECK(old.config.text("train.lr") == "0.0005");
  const RunSpec now = parse_run_spec(head + "train:\n  no_decay: paper\n", "new");
  CHECK(now.config.text("train.no_decay") == "paper");
  CHECK(Config::defaults().text("train.no_decay") == "paper");  // the default a file without the key does not get
}

TEST_CASE("every spec under experiments/ loads and expands under each of its profiles", "[spec]") {
  int specs = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(std::string(REPRO_SOURCE_DIR) + "/experiments")) {
    if (entry.path().extension() != ".yaml" || entry.path().parent_path().filename() == "paper")
      continue;  // paper/: numbers
    INFO(entry.path().string());
    Experiment e = load_experiment(entry.path().string());
    CHECK_FALSE(expand_grid(e, dataset_catalog()).empty());
    CHECK_NOTHROW(validate_plan(expand_grid(e, dataset_catalog())));  // every model builds, before any data is read
    check_resolved_specs_read_back(expand_grid(e, dataset_catalog()));
    for (const auto& [name, profile] : e.profiles) {
      INFO("profile " << name);
      Experiment with = load_experiment(entry.path().string());
      with.choose_profile(name);
      CHECK_FALSE(expand_grid(with, dataset_catalog()).empty());
      CHECK_NOTHROW(validate_plan(expand_grid(with, dataset_catalog())));
      check_resolved_specs_read_back(expand_grid(with, dataset_catalog()));
    }
    ++specs;
  }
  CHECK(specs >= 12);
}

TEST_CASE("run identity: every planned run has its own folder and names where it comes from", "[spec]") {
  test::TempDir dir("spec-identity");
  Experiment e = load_experiment(spec_file(dir, kValid));
  CHECK(e.seeds_where == (dir.path() / "spec.yaml").string() + ":3");
  CHECK(e.rows[1].where == (dir.path() / "spec.yaml").string() + ":13");
  Experiment lr_sweep = e;  // row 'wide' sets train.lr itself: a sweep over it would make 'wide' train other rates
  lr_sweep.axes.push_back(parse_axis("train.lr=1e-3,2e-3"));
  CHECK_THROWS_WITH(expand_grid(lr_sweep, dataset_catalog()),
                    Contains("--set 'train.lr=1e-3,2e-3': model configuration 'wide' (") &&
                        Contains("spec.yaml:15) sets 'train.lr' itself"));
  e.axes.push_back(parse_axis("train.epochs=1,2"));
  const auto runs = expand_grid(e, dataset_catalog());
  std::set<std::string> folders;
  for (const auto& run : runs) folders.insert(run.dir());
  CHECK(folders.size() == runs.size());
  CHECK_THAT(runs.back().origin, Contains("spec.yaml:13: model configuration 'wide+epochs=2'"));
  // The same key in different mappings is not a duplicate; a section given as dotted keys is fine.
  CHECK_NOTHROW(
      load_experiment(spec_file(dir,
                                "datasets: [fashion_mnist]\nmodel.dim: 32\nmodel.ffn.ratio: 2\nmodels:\n  - name: a\n"
                                "    model: {dim: 16}\n  - name: b\n    model: {dim: 16}\n")));
}

TEST_CASE("a spec path that is a directory or missing names the path", "[spec]") {
  test::TempDir dir("spec-paths");
  CHECK_THROWS_WITH(load_experiment(dir.path().string()), Contains(dir.path().string() + ": is a directory"));
  CHECK_THROWS_WITH(load_experiment((dir.path() / "none.yaml").string()), Contains("none.yaml: spec file not found"));
}

TEST_CASE("a plan frozen into tasks.json reads back as the same runs, without the spec or the grid", "[spec]") {
  test::TempDir dir("spec-frozen");
  Experiment e = load_experiment(spec_file(dir, kValid));
  const Plan grid = plan_grid(e);
  REQUIRE(grid.runs.size() == 4);
  const auto tasks = dir.path() / "runs" / e.folder() / "jobs/1/tasks.json";  // where --jobs freezes its plan
  freeze_tasks(tasks, {&grid.runs[3], &grid.runs[1], &grid.runs[2]}, e.source_file, 2);
  std::filesystem::remove(dir.path() / "spec.yaml");  // a task reads neither the spec nor the grid
  const Plan first = plan_of_task(tasks, 0, dir.path() / "runs"), second = plan_of_task(tasks, 1, dir.path() / "runs");
  REQUIRE(first.runs.size() == 2);
  REQUIRE(second.runs.size() == 1);
  const std::vector<const PlannedRun*> expected = {&grid.runs[3], &grid.runs[1], &grid.runs[2]};
  const std::vector<const PlannedRun*> got = {&first.runs[0], &first.runs[1], &second.runs[0]};
  for (size_t k = 0; k < 3; ++k) {
    INFO(k);
    CHECK(got[k]->id() == expected[k]->id());
    CHECK(got[k]->row == expected[k]->row);
    CHECK(got[k]->position == expected[k]->position);
    CHECK(got[k]->row_index == expected[k]->row_index);
    CHECK(got[k]->resolved_yaml() == expected[k]->resolved_yaml());
    CHECK(got[k]->options.model.dim == expected[k]->options.model.dim);
    CHECK(got[k]->options.train.schedule.lr == expected[k]->options.train.schedule.lr);
  }
  CHECK((first.states == std::vector<RunState>{RunState::Pending, RunState::Pending}));
  CHECK_THROWS_WITH(plan_of_task(tasks, 2, dir.path() / "runs"), Contains("--index 2 is past its 2 task(s)"));
  // Under another --out a task would train every run elsewhere, beside no plan.json (issue 57): refused.
  CHECK_THROWS_WITH(plan_of_task(tasks, 0, dir.path() / "elsewhere"),
                    Contains("--tasks " + tasks.string() + ": not below " + (dir.path() / "elsewhere").string()) &&
                        Contains("give that --out"));
  const auto copied = dir.path() / "tasks.json";
  std::filesystem::copy_file(tasks, copied);
  CHECK_THROWS_WITH(plan_of_task(copied, 0, dir.path() / "runs"), Contains("not below"));
  // A link to it, even in its own folder, is named as a link (it was refused as "not below --out", its target's
  // folder being another; issue 64).
  const auto link = tasks.parent_path() / "link.json";
  std::filesystem::create_symlink(copied, link);
  CHECK_THROWS_WITH(plan_of_task(link, 0, dir.path() / "runs"),
                    Contains("--tasks " + link.string() + ": a symbolic link (to " + copied.string() + ")") &&
                        !Contains("not below"));
  CHECK_FALSE(std::filesystem::exists(dir.path() / "elsewhere"));
}

TEST_CASE("spec.resolved.yaml lists the keys the run reads: no other variant's or feed-forward's (issue 65)", "[spec]") {
  test::TempDir dir("spec-resolved-reads");
  const Experiment e = load_experiment(spec_file(dir, R"(experiment: reads
datasets: [fashion_mnist]
seeds: [0]
model: {dim: 32, heads: 2, depth: 1}
models:
  - name: plain
  - name: differential
    model: {attention: {kind: diff}}
  - name: gated
    model: {attention: {kind: gi}, ffn: {kind: gimlp, inh_p: 0.2}}
  - name: words
    model: {kind: bow}
)"));
  const auto runs = expand_grid(e, dataset_catalog());
  REQUIRE(runs.size() == 4);
  const std::string plain = runs[0].resolved_yaml(), diff = runs[1].resolved_yaml(), gated = runs[2].resolved_yaml(),
                    words = runs[3].resolved_yaml();
  // Every run lists the shared keys; each its own variant's and feed-forward's.
  for (const std::string* yaml : {&plain, &diff, &gated, &words}) {
    CHECK_THAT(*yaml, Contains("  lr: ") && Contains("  dim: 32") && Contains("  kind: "));
    CHECK_THAT(*yaml, Contains("# Resolved by repro: every key this run reads"));
  }
  CHECK_THAT(plain, Contains("qkv_bias: true"));
  CHECK_THAT(diff, Contains("lambda_init: 0.8") && !Contains("qkv_bias"));
  CHECK_THAT(gated, Contains("gi_combine: ") && Contains("qkv_bias: true") && Contains("    inh_p: 0.2"));
  // No key of another variant, and the gate-with-inhibition feed-forward's key only with it.
  for (const char* other : {"diff_heads", "lambda_init", "gate_layers", "gi_combine", "plug_gml", "q_residual"})
    CHECK_THAT(plain, !Contains(std::string(other) + ":"));
  for (const char* other : {"gi_combine", "plug_gml", "gate_layers"}) CHECK_THAT(diff, !Contains(std::string(other) + ":"));
  for (const std::string* yaml : {&plain, &diff}) CHECK_THAT(*yaml, Contains("    ratio: ") && !Contains("    inh_p: "));
  // The bag of words has no attention or feed-forward block.
  CHECK_THAT(words, !Contains("attention:") && !Contains("ffn:") && !Contains("preset:"));
  // Read back, each equals its run's settings: the keys left out are at their defaults.
  for (const auto& run : runs) {
    INFO(run.model_config);
    CHECK(setting_differences(run.resolved_yaml(), run.config.to_yaml(), false).empty());
  }
}

TEST_CASE("the fuzz target's spec dictionary holds every key of the key table (tests/fuzz/make_seeds.py)", "[spec]") {
  const std::string dictionary = read_file(std::filesystem::path(REPRO_SOURCE_DIR) / "tests/fuzz/spec.dict");
  for (const auto& def : spec_keys()) {
    INFO(def.key << ": run python3 tests/fuzz/make_seeds.py again");
    CHECK_THAT(dictionary, Contains("\"" + def.key + "\"\n"));
  }
}

namespace {

// The text between `<!-- NAME -->` and `<!-- NAME end -->` in `file` ("" when the markers are missing).
std::string generated_block(const std::string& file, const std::string& name) {
  const std::string text = read_file(std::filesystem::path(REPRO_SOURCE_DIR) / file);
  const std::string open = "<!-- " + name + " -->\n", close = "<!-- " + name + " end -->";
  const auto start = text.find(open);
  const auto end = text.find(close);
  if (start == std::string::npos || end == std::string::npos || end < start) return "";
  return text.substr(start + open.size(), end - start - open.size());
}

}  // namespace

TEST_CASE("the README's list of kinds and docs/models.md's parameter names are repro list's (issue 65)", "[spec]") {
  INFO("regenerate: build/repro list --format kinds (README.md) and --format params (docs/models.md)");
  CHECK(generated_block("README.md", "repro list --format kinds") == kinds_markdown());
  CHECK(generated_block("docs/models.md", "repro list --format params") == parameter_names_markdown());
  // Not blind: each variant is named, with its own parameters.
  for (const auto& e : attention_table()) {
    CHECK_THAT(kinds_markdown(), Contains("`" + e.variant->name + "`"));
    CHECK_THAT(parameter_names_markdown(), Contains("| `" + e.variant->name + "` | `blocks.i.attn."));
  }
}
