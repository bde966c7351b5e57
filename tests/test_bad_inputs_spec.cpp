// Bad spec inputs, table-driven: spec files, KEY=VALUE overrides, --seeds, --set and CLI
// options. Each must be refused before anything trains, with a message naming where
// (file:line or the argument), the key or value and what was expected.
#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <optional>

#include "catch.h"
#include "cli/common.h"
#include "data/registry.h"
#include "fixtures.h"
#include "run/plan.h"
#include "run_repro.h"
#include "spec/grid.h"
#include "util/error.h"
#include "util/files.h"
#include "util/strings.h"

using namespace repro;
using repro::test::Contains;

namespace {

struct SpecBadInput {
  std::string spec;                    // the spec file's text (spec.yaml)
  std::vector<std::string> overrides;  // KEY=VALUE
  std::optional<std::string> seeds;    // sweep's --seeds
  std::vector<std::string> axes;       // sweep's --set
  std::string profile;                 // --profile
  std::vector<std::string> expected;   // words the message must contain
};

const std::string kData = "datasets: [fashion_mnist]\n";
const std::string kTinySpec = "datasets: [fashion_mnist]\nmodel: {dim: 16, depth: 1, heads: 2, patch: 7}\n";  // 2 lines

// What `repro sweep` does before training: load, override, choose the profile, add seeds and axes,
// expand the grid (run identity) and validate every model.
std::string plan_error(const test::TempDir& dir, const SpecBadInput& input) {
  const auto path = dir.path() / "spec.yaml";
  test::write_text(path, input.spec);
  try {
    Experiment experiment = load_spec(path.string(), input.overrides, input.profile);
    apply_sweep_arguments(experiment, input.seeds, input.axes);
    validate_plan(expand_grid(experiment, dataset_catalog()));
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

const std::vector<SpecBadInput>& bad_inputs() {
  static const std::vector<SpecBadInput> rows = {
      // ---- bytes YAML cannot hold, nesting past yaml-cpp's limit (issue 34, points 9-10)
      {kData + "seeds: [0]\n" + std::string("bad: a\0b\n", 9),
       {},
       {},
       {},
       "",
       {"spec.yaml:3", "a NUL byte", "column 7"}},
      {kData + "deep: " + std::string(2100, '[') + "\n", {}, {}, {}, "", {"spec.yaml:2", "nested too deeply"}},
      // ---- run identity: two runs, one folder
      {kData + "seeds: [0, 0]\n", {}, {}, {}, "", {"spec.yaml:2", "seed 0 is listed 2 times", "seed_0"}},
      {kData + "seeds: 0-2,1\n", {}, {}, {}, "", {"spec.yaml:2", "seed 1 is listed 2 times"}},
      // ---- a bare number has two readings (issue 48): seed 3, or three seeds
      {kData + "seeds: 3\n",
       {},
       {},
       {},
       "",
       {"spec.yaml:2", "'seeds: 3' has two readings", "seeds: [3]", "seeds: 0-2"}},
      {kData + "seeds: 0\n", {}, {}, {}, "", {"spec.yaml:2", "seeds: [0] for the one seed 0"}},
      {kData, {}, "0,0", {}, "", {"--seeds '0,0'", "seed 0 is listed 2 times"}},
      {kData, {}, "3,1-4", {}, "", {"--seeds '3,1-4'", "seed 3"}},
      {kTinySpec,
       {},
       {},
       {"train.lr=0.001,1e-3"},
       "",
       {"--set 'train.lr=0.001,1e-3'", "'0.001' and '1e-3'", "same value"}},
      {kTinySpec + "sweep:\n  model.ffn.ratio: [2, 2.0]\n",
       {},
       {},
       {},
       "",
       {"spec.yaml:4", "'2' and '2.0'", "same value"}},
      {kTinySpec,
       {},
       {},
       {"train.lr=1e-3", "train.lr=2e-3"},
       "",
       {"--set 'train.lr=2e-3'", "sweep axis 'train.lr' is given twice", "first at --set 'train.lr=1e-3'"}},
      {kTinySpec + "sweep:\n  train.lr: [1e-3, 2e-3]\n",
       {},
       {},
       {"train.lr=5e-3"},
       "",
       {"--set 'train.lr=5e-3'", "given twice", "first at", "spec.yaml:4"}},
      {kTinySpec,
       {"train.lr=5e-4"},
       {},
       {"train.lr=1e-3,2e-3"},
       "",
       {"override 'train.lr=5e-4'", "replaces every value of the sweep axis", "--set 'train.lr=1e-3,2e-3'"}},
      {kTinySpec + "sweep: {train.lr: [1e-3, 2e-3]}\nprofiles:\n  s: {train.lr: 5e-4}\n",
       {},
       {},
       {},
       "s",
       {"spec.yaml:5", "profile 's' sets 'train.lr'", "spec.yaml:3"}},
      {kTinySpec + "sweep: {train.lr: [1e-3, 2e-3]}\nper_dataset:\n  fashion_mnist: {train.lr: 5e-4}\n",
       {},
       {},
       {},
       "",
       {"spec.yaml:5", "per_dataset 'fashion_mnist' sets 'train.lr'"}},
      {kTinySpec + "models:\n  - name: a/b\n  - name: a_b\n",
       {},
       {},
       {},
       "",
       {"spec.yaml:4: model configuration 'a/b'", "spec.yaml:5: model configuration 'a_b'",
        "fashion_mnist/a_b/seed_0"}},
      {kTinySpec + "models:\n  - name: x y\n  - name: x?y\nsweep: {model.ffn.ratio: [2, 4]}\n",
       {},
       {},
       {},
       "",
       {"'x y+ffn.ratio=2'", "'x?y+ffn.ratio=2'", "would both train in the run folder", "x_y+ffn.ratio=2/seed_0"}},
      {kTinySpec + "models:\n  - name: ..\n", {}, {}, {}, "", {"spec.yaml:4", "model name '..'", "folder name"}},
      {kTinySpec + "models:\n  - name: x\n  - name: x\n", {}, {}, {}, "", {"spec.yaml:5", "duplicate model name 'x'"}},
      {"experiment: ..\n" + kData, {}, {}, {}, "", {"spec.yaml:1", "experiment name '..'"}},
      {"datasets: [fashion_mnist, fashion_mnist]\n",
       {},
       {},
       {},
       "",
       {"spec.yaml:1", "'fashion_mnist' is listed twice"}},
      {kData + "profiles:\n  s: {seeds: [1, 1]}\n", {}, {}, {}, "s", {"spec.yaml:3", "(profile s)", "seed 1"}},
      // ---- duplicate keys
      {kData + "train: {epochs: 1}\ntrain: {epochs: 50}\n",
       {},
       {},
       {},
       "",
       {"spec.yaml:3", "duplicate key 'train'", "first at ", "spec.yaml:2)"}},
      {kData + "model:\n  dim: 16\n  dim: 32\n",
       {},
       {},
       {},
       "",
       {"spec.yaml:4", "duplicate key 'model.dim'", "first at ", "spec.yaml:3)"}},
      {kData + "models:\n  - name: a\n    model: {ffn: {ratio: 2, ratio: 4}}\n",
       {},
       {},
       {},
       "",
       {"spec.yaml:4", "duplicate key 'models[0].model.ffn.ratio'"}},
      {kData + "train: {epochs: 5}\ntrain.epochs: 1\n",
       {},
       {},
       {},
       "",
       {"spec.yaml:3", "key 'train.epochs' is given twice", "first at ", "spec.yaml:2)"}},
      {kData + "profiles:\n  s: {train.epochs: 1}\n  s: {train.epochs: 2}\n",
       {},
       {},
       {},
       "",
       {"spec.yaml:4", "duplicate key 'profiles.s'"}},
      {kData + "datasets: [cifar10]\n", {}, {}, {}, "", {"spec.yaml:2", "duplicate key 'datasets'"}},
      {kData,
       {"train.epochs=1", "train.epochs=2"},
       {},
       {},
       "",
       {"override 'train.epochs=2'", "given twice on the command line", "'train.epochs=1'"}},
      // ---- empty lists
      {"datasets: []\n", {}, {}, {}, "", {"spec.yaml:1", "'datasets' is an empty list"}},
      {kData + "models: []\n", {}, {}, {}, "", {"spec.yaml:2", "'models' is an empty list"}},
      {kData + "seeds: []\n", {}, {}, {}, "", {"spec.yaml:2", "expected at least one seed"}},
      {kData, {}, "", {}, "", {"--seeds ''", "expected at least one seed"}},
      {kData + "sweep: {train.lr: []}\n", {}, {}, {}, "", {"spec.yaml:2", "non-empty list"}},
      {kData + "profiles:\n  s: {datasets: []}\n", {}, {}, {}, "", {"spec.yaml:3", "'datasets' is an empty list"}},
      // ---- settings a model cannot honour (checked for every run before the first trains)
      {kTinySpec + "model.max_len: 10\n",
       {},
       {},
       {},
       "",
       {"model.max_len=10", "shorter than the 17 tokens", "model.patch=7", "28x28"}},
      {"datasets: [rotten_tomatoes]\nmodel: {dim: 16, depth: 1, heads: 2, max_len: 32}\ntext: {max_len: 64}\n",
       {},
       {},
       {},
       "",
       {"model.max_len=32", "text.max_len=64"}},
      {kTinySpec + "models:\n  - name: ok\n  - name: bad\n    model: {heads: 3}\n",
       {},
       {},
       {},
       "",
       {"spec.yaml:5: model configuration 'bad'", "model.dim=16 must be divisible by model.heads=3"}},
      {kTinySpec, {"model.patch=5"}, {}, {}, "", {"model.patch=5 must divide the image size 28x28"}},
      {kTinySpec, {}, {}, {"model.heads=2,3"}, "", {"'model+heads=3'", "divisible by model.heads=3"}},
      // a command-line override is blamed for what it breaks, not the spec's row (issue 48)
      {kTinySpec,
       {"model.heads=3"},
       {},
       {},
       "",
       {"override 'model.heads=3': model.dim=16 must be divisible by model.heads=3", "spec.yaml: model configuration"}},
      {kTinySpec, {"model.kind=text"}, {}, {}, "", {"model.kind=text needs a text dataset", "fashion_mnist"}},
      // ---- settings each valid alone that no run can use together (issue 49)
      {kTinySpec + "data: {val_fraction: 0}\ntrain: {select: best_val}\n",
       {},
       {},
       {},
       "",
       {"train.select: best_val needs a validation split", "data.val_fraction is 0"}},
      {kTinySpec + "models:\n  - name: plain\n    model: {attention: {kind: vanilla, diff_heads: 2}}\n",
       {},
       {},
       {},
       "",
       {"spec.yaml:5", "model configuration 'plain' sets model.attention.diff_heads", "model.attention.kind=diff",
        "its attention is vanilla"}},
      // ---- a shared key the chosen variant does not list, a key read only for another feed-forward (issue 65)
      {kTinySpec + "models:\n  - name: differential\n    model: {attention: {kind: diff, qkv_bias: false}}\n",
       {},
       {},
       {},
       "",
       {"spec.yaml:5", "model configuration 'differential' sets model.attention.qkv_bias",
        "only model.attention.kind=vanilla | plug | gi reads it; its attention is diff"}},
      {kTinySpec + "models:\n  - name: mlp\n    model: {ffn: {inh_p: 0.2}}\n",
       {},
       {},
       {},
       "",
       {"spec.yaml:5", "model configuration 'mlp' sets model.ffn.inh_p",
        "only model.ffn.kind=gimlp reads it; it is mlp"}},
      // ---- keys the run's model does not read, wherever they are set (issue 57): refused, naming the place
      {kTinySpec,
       {"model.attention.diff_heads=2"},
       {},
       {},
       "",
       {"override 'model.attention.diff_heads=2': the command line sets model.attention.diff_heads",
        "model configuration 'model' on fashion_mnist does not read", "model.attention.kind=diff",
        "its attention is vanilla"}},
      {kTinySpec + "model.attention.gate_bias_init: 2\n",
       {},
       {},
       {},
       "",
       {"spec.yaml:3: the spec's base sets model.attention.gate_bias_init", "model.attention.kind=dgsa",
        "its attention is vanilla"}},
      {kTinySpec,
       {},
       {},
       {"model.attention.lambda_init=0.2,0.5"},
       "",
       {"--set 'model.attention.lambda_init=0.2,0.5'", "sweep axis sets model.attention.lambda_init",
        "its attention is vanilla"}},
      {kTinySpec + "profiles:\n  s: {model.attention.diff_heads: 2}\n",
       {},
       {},
       {},
       "s",
       {"spec.yaml:4", "profile 's' sets model.attention.diff_heads", "its attention is vanilla"}},
      {kTinySpec + "per_dataset:\n  fashion_mnist: {model.attention.diff_heads: 2}\n",
       {},
       {},
       {},
       "",
       {"spec.yaml:4", "per_dataset 'fashion_mnist' sets model.attention.diff_heads"}},
      {"datasets: [rotten_tomatoes]\nmodel: {kind: bow, attention: {kind: diff}}\n",
       {},
       {},
       {},
       "",
       {"spec.yaml:2: the spec's base sets model.attention.kind", "model.kind=bow has no attention"}},
      {"datasets: [rotten_tomatoes]\nmodels:\n  - name: b\n    model: {kind: bow}\n",
       {"model.attention.diff_heads=2"},
       {},
       {},
       "",
       {"the command line sets model.attention.diff_heads", "model configuration 'b' on rotten_tomatoes",
        "model.kind=bow has no attention"}},
      {"datasets: [rotten_tomatoes]\nmodels:\n  - name: b\n    model: {kind: bow, ffn: {ratio: 2}}\n",
       {},
       {},
       {},
       "",
       {"spec.yaml:4", "model configuration 'b' sets model.ffn.ratio",
        "model.kind=bow has no attention or feed-forward"}},
      // ---- a control character in a name breaks the log line, the Markdown table and the folder (issue 57)
      {kTinySpec + "models:\n  - name: \"line\\nbreak\"\n",
       {},
       {},
       {},
       "",
       {"spec.yaml:4", "model name 'line\\nbreak'", "control character 0x0a at byte 4"}},
      {kTinySpec + "models:\n  - name: \"tab\\there\"\n", {}, {}, {}, "", {"spec.yaml:4", "control character 0x09"}},
      // ---- C1 control characters and bytes that are not UTF-8 ended the run in a JSON library error (issue 64)
      {kTinySpec + "models:\n  - name: \"esc\\x9bape\"\n",
       {},
       {},
       {},
       "",
       {"spec.yaml:4", "model name 'esc\\u009bape'", "the control character U+009B at byte 3"}},
      {kTinySpec + "models:\n  - name: \"next\\Nline\"\n",
       {},
       {},
       {},
       "",
       {"spec.yaml:4", "0x85 (not UTF-8) at byte 4"}},  // yaml-cpp writes "\N" as that one byte
      {kTinySpec + "models:\n  - name: bad\xffname\n",
       {},
       {},
       {},
       "",
       {"spec.yaml:4", "model name 'bad\\xffname'", "the byte 0xff (not UTF-8) at byte 3"}},
      {"datasets: [rotten_tomatoes]\nmodels:\n  - name: b\n    model: {kind: bow, norm_placement: post}\n",
       {},
       {},
       {},
       "",
       {"spec.yaml:4", "model configuration 'b' sets model.norm_placement", "model.kind=bow has no blocks"}},
      // ---- a dataset name with a newline, printed escaped on one line; a seed range past its bound (issue 64)
      {"datasets: [\"fashion\\nmnist\"]\n", {}, {}, {}, "", {"spec.yaml:1", "unknown dataset 'fashion\\nmnist'"}},
      {kData, {}, "0-999999999", {}, "", {"--seeds", "'0-999999999' holds 1000000000 seeds", "at most 10001"}},
      {kData, {}, "5-2", {}, "", {"--seeds", "'5-2' ends before it begins"}},
      {kData, {}, "99999999999999999999", {}, "", {"--seeds", "beyond the largest seed"}},
      // ---- YAML shapes yaml-cpp cannot convert
      {"experiment: [a, b]\n" + kData, {}, {}, {}, "", {"spec.yaml:1", "'experiment': got a list", "expected a name"}},
      {kData + "models:\n  - name: [x]\n", {}, {}, {}, "", {"spec.yaml:3", "'name': got a list"}},
      {"datasets: [{fashion_mnist: 1}]\n", {}, {}, {}, "", {"spec.yaml:1", "'datasets': got a mapping"}},
      {kData + "description: {a: b}\n", {}, {}, {}, "", {"spec.yaml:2", "'description': got a mapping"}},
      {kData + "[a]: 1\n", {}, {}, {}, "", {"spec.yaml:2", "a key must be a plain name", "got a list"}},
      {kData + "seeds: {a: 1}\n", {}, {}, {}, "", {"spec.yaml:2", "'seeds': got a mapping"}},
      {kData + "seeds: [[0]]\n", {}, {}, {}, "", {"spec.yaml:2", "'seeds': got a list"}},
      {kData + "model: 5\n", {}, {}, {}, "", {"spec.yaml:2", "'model' must be a mapping"}},
      {kData + "experiment:\n", {}, {}, {}, "", {"spec.yaml:2", "'experiment': got no value"}},
      {kData + "per_dataset:\n  fashion_mnist: 3\n", {}, {}, {}, "", {"spec.yaml:3", "must be a mapping of settings"}},
      {kData + "sweep: {model.dim: [16, {a: 1}]}\n", {}, {}, {}, "", {"spec.yaml:2", "got a mapping"}},
      {"datasets: fashion_mnist: x\n", {}, {}, {}, "", {"spec.yaml:1", "invalid YAML"}},
      {"", {}, {}, {}, "", {"spec.yaml", "must be a YAML mapping"}},
      // ---- keys and values
      {kData + "seeds.x: 1\n", {}, {}, {}, "", {"spec.yaml:2", "unknown top-level key 'seeds.x'"}},
      {kData + "model: {dim: [1, 2]}\n", {}, {}, {}, "", {"spec.yaml:2", "key 'model.dim'", "got a list"}},
      {kData + "seeds: -1\n", {}, {}, {}, "", {"spec.yaml:2", "non-negative"}},
      {kData, {"train.epochs"}, {}, {}, "", {"override 'train.epochs'", "expected KEY=VALUE"}},
      {kData, {"train.epoch=5"}, {}, {}, "", {"did you mean 'train.epochs'?"}},
      {kData, {"model.dim=abc"}, {}, {}, "", {"key 'model.dim'", "got 'abc'", "expected an integer"}},
      {kData, {}, {}, {"model.dim"}, "", {"--set 'model.dim'", "expected KEY=V1,V2"}},
      {kData, {}, {}, {"model.dim=16,x"}, "", {"--set 'model.dim=16,x'", "got 'x'"}},
      {kData, {}, "a-b", {}, "", {"--seeds 'a-b'", "expected a list like 0-4"}},
      {kData, {}, {}, {}, "nope", {"--profile nope", "defines no profiles"}},
  };
  return rows;
}

}  // namespace

TEST_CASE("bad spec inputs are refused before training, naming where, the key or value and what was expected",
          "[spec]") {
  test::TempDir dir("bad-spec");
  const auto& rows = bad_inputs();
  CHECK(rows.size() >= 40);
  for (size_t i = 0; i < rows.size(); ++i) {
    const SpecBadInput& row = rows[i];
    const std::string message = plan_error(dir, row);
    INFO("row " << i << ": spec:\n" << row.spec << "message: " << message);
    for (const auto& word : row.expected) CHECK_THAT(message, Contains(word));
    CHECK(message.find('\n') == std::string::npos);  // one line
  }
}

TEST_CASE("first_unprintable and escaped: what a one-line name cannot hold, shown on one line", "[spec]") {
  CHECK_FALSE(first_unprintable("caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x99\x82").has_value());  // UTF-8 is a name's
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"a\nb", "the control character 0x0a"},         {std::string("a\0b", 3), "the control character 0x00"},
      {"a\x7f", "the control character 0x7f"},        {"a\xc2\x85", "the control character U+0085"},
      {"a\xc2\x9f", "the control character U+009F"},  {"a\xc3", "the byte 0xc3 (not UTF-8)"},
      {"a\x80", "the byte 0x80 (not UTF-8)"},         {"a\xc0\xaf", "the byte 0xc0 (not UTF-8)"},
      {"a\xed\xa0\x80", "the byte 0xed (not UTF-8)"}, {"a\xf4\x90\x80\x80", "the byte 0xf4 (not UTF-8)"}};
  for (const auto& [text, what] : refused) {
    INFO(escaped(text));
    const auto bad = first_unprintable(text);
    REQUIRE(bad.has_value());
    CHECK(bad->at == 1);
    CHECK(bad->what == what);
  }
  CHECK(escaped(std::string("a\nb\tc\0\x1b\xc2\x9b\xff\xc3\xa9", 12)) == "a\\nb\\tc\\0\\x1b\\u009b\\xff\xc3\xa9");
}

TEST_CASE("bad inputs through the repro binary exit 2 with one error line", "[cli]") {
  test::TempDir dir("bad-cli");
  const std::string spec = (dir.path() / "spec.yaml").string();
  test::write_text(spec, kTinySpec);
  const std::string dup = (dir.path() / "dup.yaml").string();
  test::write_text(dup, kTinySpec + "train: {epochs: 1}\ntrain: {epochs: 50}\n");
  const std::string names = (dir.path() / "names.yaml").string();
  test::write_text(names, kTinySpec + "models:\n  - name: a/b\n  - name: a_b\n");
  const std::string out = " --out " + (dir.path() / "runs").string();
  const std::vector<std::pair<std::string, std::vector<std::string>>> rows = {
      {"run " + dir.path().string() + out, {dir.path().string() + ": is a directory", "expected a spec file"}},
      {"run " + (dir.path() / "absent.yaml").string() + out, {"absent.yaml: spec file not found"}},
      {"sweep " + spec + " --seeds ''" + out, {"--seeds ''", "expected at least one seed"}},
      {"sweep " + spec + " --seeds 0,0 --dry-run" + out, {"--seeds '0,0'", "seed 0 is listed 2 times"}},
      {"sweep " + spec + " --set train.lr=1e-3 --set train.lr=2e-3 --dry-run" + out,
       {"sweep axis 'train.lr' is given twice"}},
      {"sweep " + spec + " --set train.lr=0.001,1e-3 --dry-run" + out, {"'0.001' and '1e-3'", "same value"}},
      {"run " + dup + " --dry-run" + out, {"dup.yaml:4", "duplicate key 'train'", "dup.yaml:3"}},
      {"run " + names + " --dry-run" + out, {"names.yaml:4", "names.yaml:5", "a_b/seed_0"}},
      {"params " + names, {"names.yaml:4", "names.yaml:5"}},
      {"run " + spec + " model.max_len=10 --dry-run" + out, {"model.max_len=10", "17 tokens"}},
      {"run " + spec + " --profile paper" + out, {"--profile paper", "defines no profiles"}},
      {"run " + spec + " --device tpu" + out, {"--device", "tpu"}},
      {"run " + spec + " --threads -1" + out, {"--threads"}},
      // More threads or jobs than usable CPUs: refused at once (these started thousands of threads before).
      {"run " + spec + " seeds=0 --dry-run" + out, {"'seeds' is a part of the spec, not a setting", "--seeds"}},
      {"sweep " + spec + " --set datasets=a,b --dry-run" + out, {"'datasets' is a part of the spec", "--datasets"}},
      {"run " + spec + " --threads 100000" + out, {"--threads 100000: more than the", "usable CPU", "at most"}},
      {"run " + spec + " --jobs 2 --threads-per-job 100000" + out, {"--threads-per-job 100000", "usable CPU"}},
      {"run " + spec + " --jobs 100000" + out, {"--jobs 100000: more than the", "needs a CPU"}},
      {"sweep " + spec + " --seeds 0 --threads 100000 --dry-run" + out, {"--threads 100000"}},
      {"eval " + (dir.path() / "runs").string() + " --threads 100000", {"--threads 100000: more than the"}},
      {"rollout " + (dir.path() / "runs").string() + " --threads 100000", {"--threads 100000: more than the"}},
      {"bench " + spec + " --threads 100000", {"--threads 100000: more than the"}},
      // Every whole-number option: its name, the value, what is allowed (not CLI11's "Value 0 not in range 0
      // to 1.8e308").
      {"rollout " + (dir.path() / "runs").string() + " --examples 0", {"--examples: got 0: must be ≥ 1"}},
      {"run " + spec + " --manifest m.tsv --index -1" + out, {"--index: got -1: must be ≥ 0"}},
      {"run " + spec + " --jobs two" + out, {"--jobs: got 'two', expected a whole number ≥ 0"}},
      {"eval " + (dir.path() / "runs").string() + " --threads -2", {"--threads: got -2: must be ≥ 0"}},
      {"run " + spec + " --no-such-option" + out, {"--no-such-option"}},
      // Issue 34, points 5-7: values that were taken silently.
      {"run " + spec + " --threads 1 --threads-per-job 2" + out,
       {"--threads 1 and --threads-per-job 2", "both set the LibTorch threads", "give one"}},
      {"report " + (dir.path() / "runs").string() + " --select ''", {"--select ''", "an empty axis name"}},
      {"report " + (dir.path() / "runs").string() + " --select lr,", {"--select 'lr,'", "an empty axis name"}},
      {"launch slurm " + spec + " --dry-run" + out + " -- --mem 4G train.epochs=3",
       {"'train.epochs=3' after -- --mem 4G", "looks like a spec override", "overrides go before --"}},
  };
  for (const auto& [arguments, expected] : rows) {
    const test::Result result = test::run_repro(arguments);
    INFO(arguments << "\n" << result.output);
    CHECK(result.exit_code == 2);
    for (const auto& word : expected) CHECK_THAT(result.output, Contains(word));
  }
  CHECK_FALSE(std::filesystem::exists(dir.path() / "runs"));  // nothing was planned, let alone trained
}

TEST_CASE("a spec whose second row cannot be built trains nothing", "[cli]") {
  test::TempDir dir("bad-row2");
  test::write_fashion_fixture(dir.path() / "data", 60, 20);
  const auto spec = dir.path() / "rows.yaml";
  test::write_text(spec, kTinySpec +
                             "train: {epochs: 1, batch_size: 16}\nmodels:\n  - name: fine\n  - name: three-heads\n"
                             "    model: {heads: 3}\n");
  const test::Result result =
      test::run_repro("run " + spec.string() + " --data-root " + (dir.path() / "data").string() + " --out " +
                      (dir.path() / "runs").string());
  INFO(result.output);
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.output, Contains("rows.yaml:6: model configuration 'three-heads' on fashion_mnist") &&
                                Contains("model.dim=16 must be divisible by model.heads=3"));
  CHECK_FALSE(std::filesystem::exists(dir.path() / "runs/rows/fashion_mnist/fine"));  // row 1 did not train
}

TEST_CASE("a damaged run folder is refused naming it, never taken for a finished run", "[spec]") {
  test::TempDir dir("bad-folder");
  test::write_text(dir.path() / "spec.yaml", kTinySpec);
  const auto runs = expand_grid(load_experiment((dir.path() / "spec.yaml").string()), dataset_catalog());
  const auto out = dir.path() / "out";
  const auto folder = out / runs[0].dir();
  test::write_text(folder / "spec.resolved.yaml", "model: [unclosed\n");
  CHECK_THROWS_WITH(check_plan(runs, out),
                    Contains(folder.string()) && Contains("not valid YAML") && Contains("Nothing was overwritten"));
  test::write_text(folder / "spec.resolved.yaml", runs[0].resolved_yaml());
  // A record that cannot be read is neither a finished run nor one to train over (issue 49, point 3): refused,
  // naming the file, why, and how to keep it; the file is left as it was.
  const auto summary = folder / "summary.json";
  const std::vector<std::pair<std::string, std::string>> unreadable = {
      {"{\"status\": 3}\n", "'status' is 3, expected a string"},
      {"[\"complete\"]\n", "is array, expected a JSON object"},
      {"garbage", "not valid JSON"},
      {"{\"record_version\": 2, \"status\": \"complete\"}", "record_version 2 is newer than this repro reads"},
      {"{\"record_version\": 18446744073709551615, \"status\": \"complete\"}",
       "record_version 18446744073709551615 is newer"}};
  for (const auto& [text, why] : unreadable) {
    INFO(text);
    test::write_text(summary, text);
    CHECK_THROWS_WITH(check_plan(runs, out), Contains(summary.string()) && Contains(why) &&
                                                 Contains("Nothing was overwritten") &&
                                                 Contains("mv " + summary.string()));
    CHECK(read_file(summary) == text);
  }
  std::filesystem::remove(summary);
  std::filesystem::create_directory(summary);
  CHECK_THROWS_WITH(check_plan(runs, out), Contains(summary.string() + ": is a folder, expected a JSON record"));
  std::filesystem::remove(summary);
  REQUIRE(::mkfifo(summary.c_str(), 0644) == 0);  // never opened for a blocking read: no hang
  CHECK_THROWS_WITH(check_plan(runs, out), Contains(summary.string() + ": is a FIFO (named pipe)"));
  std::filesystem::remove(summary);
  // A failed run's record is retried, as before.
  test::write_text(summary,
                   "{\"status\": \"failed\", \"message\": \"x\", \"experiment\": \"e\", "
                   "\"model_config\": \"m\", \"dataset\": \"fashion_mnist\", \"seed\": 0}");
  CHECK(check_plan(runs, out)[0] == RunState::Pending);
}

TEST_CASE("a run folder whose spec.resolved.yaml is gone is never trained over; status calls it corrupt", "[cli]") {
  test::TempDir dir("spec-gone");
  test::write_fashion_fixture(dir.path() / "data", 64, 16);
  const auto spec = dir.path() / "spec.yaml";
  test::write_text(spec, kTinySpec + "seeds: [0, 1]\ntrain: {epochs: 1, batch_size: 16}\ndata: {verify: off}\n");
  const auto out = dir.path() / "runs";
  const std::string run = "run " + spec.string() + " --data-root " + (dir.path() / "data").string() + " --out " +
                          out.string() + " --threads 1";
  REQUIRE(test::run_repro(run).exit_code == 0);
  const auto folder = out / "spec/fashion_mnist/model/seed_0";
  std::map<std::string, std::string> kept;
  for (const char* file : {"summary.json", "metrics.csv", "model.pt"}) kept[file] = read_file(folder / file);
  std::filesystem::remove(folder / "spec.resolved.yaml");
  const test::Result refused = test::run_repro(run);
  INFO(refused.output);
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.output, Contains((folder / "spec.resolved.yaml").string() + " is missing beside the run's "
                                                                                 "summary.json") &&
                                 Contains("Nothing was overwritten") && Contains("mv " + folder.string()));
  for (const auto& [file, bytes] : kept) CHECK(read_file(folder / file) == bytes);
  const test::Result status = test::run_repro("status " + out.string());
  INFO(status.output);
  CHECK_THAT(status.output, Contains("1 complete") && Contains("1 corrupt, not counted") &&
                                Contains("seed_0  spec.resolved.yaml is missing beside its summary.json"));
  // Its kept weights alone are a record too; a metrics.csv alone is what a kill leaves, rewritten by the run.
  std::filesystem::remove(folder / "summary.json");
  CHECK_THAT(test::run_repro(run).output, Contains("is missing beside the run's model.pt"));
  std::filesystem::remove(folder / "model.pt");
  CHECK(test::run_repro(run + " --dry-run").exit_code == 0);  // nothing left to train over: planned as new
}

TEST_CASE("a spec that is a device or a FIFO is refused at once, naming it, never read (issue 49)", "[cli]") {
  test::TempDir dir("spec-not-regular");
  const auto fifo = dir.path() / "spec.yaml";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  const std::vector<std::pair<std::string, std::string>> specs = {
      {"/dev/zero", "/dev/zero: is a character device, expected a spec file (YAML) (a regular file)"},
      {"/dev/urandom", "/dev/urandom: is a character device, expected a spec file"},
      {fifo.string(), fifo.string() + ": is a FIFO (named pipe), expected a spec file"},
      {dir.path().string(), dir.path().string() + ": is a directory; expected a spec file"}};
  const std::string out = " --out " + (dir.path() / "runs").string();
  for (const auto& [spec, words] : specs)
    for (const std::string& command :
         std::vector<std::string>{"run " + spec + out, "run " + spec + " --dry-run" + out, "params " + spec}) {
      // `timeout`: before issue 49 /dev/zero ended in std::bad_alloc after 32 s, /dev/urandom and a FIFO never.
      const test::Result result = test::run_command("timeout 60 " + std::string(REPRO_BINARY) + " " + command);
      INFO(command << "\n" << result.output);
      CHECK(result.exit_code == 2);
      CHECK_THAT(result.output, Contains("repro: error: " + words));
      CHECK(test::count_of(result.output, "\n") == 1);  // one line
    }
  CHECK_FALSE(std::filesystem::exists(dir.path() / "runs"));
}
