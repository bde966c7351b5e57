// Bad `repro launch slurm` inputs, table-driven: values that would reach submit.sbatch (its #SBATCH lines, its
// setup lines, its exec line) and that the script cannot carry safely. Each must be refused before anything is
// written, exit 2, with one line naming the option, the value and what was expected. Before these checks each
// row was written into the script as it was (a newline made a live command line) or not known at all.
#include "catch.h"
#include <algorithm>
#include <filesystem>

#include "fixtures.h"
#include "run_repro.h"
#include "util/strings.h"

using namespace repro;
using repro::test::Contains;
namespace fs = std::filesystem;

namespace {

struct BadLaunch {
  std::vector<std::string> arguments;  // after `launch slurm SPEC --out OUT --dry-run`, any bytes; @DIR@ = the folder
  std::vector<std::string> expected;   // words the message must contain
  std::string spec = "spec.yaml";      // the spec's file name in the folder
};

const std::string kTinySlurmSpec =
    "experiment: bad\ndatasets: [fashion_mnist]\nmodel: {dim: 16, depth: 1, heads: 2, patch: 7}\n";

// One argument for /bin/sh, written here rather than with the quoting under test: '...' with ' as '"'"'.
std::string sh(const std::string& word) {
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\"'\"'") : std::string(1, c);
  return quoted + "'";
}

std::string with_dir(std::string text, const fs::path& dir) {
  for (auto at = text.find("@DIR@"); at != std::string::npos; at = text.find("@DIR@"))
    text.replace(at, 5, dir.string());
  return text;
}

const std::vector<BadLaunch>& bad_launches() {
  static const std::vector<BadLaunch> rows = {
      // ---- #SBATCH values: one line, SLURM's own syntax
      {{"--partition", "gpu\ntouch INJECTED"}, {"--partition 'gpu\\ntouch INJECTED'", "contains a newline"}},
      {{"--partition", "gpu;touch INJECTED"},
       {"--partition 'gpu;touch INJECTED'", "is not a SLURM partition name", "letters, digits"}},
      {{"--partition", "gpu debug"}, {"--partition 'gpu debug'", "is not a SLURM partition name"}},
      {{"--partition", "gpu,"}, {"--partition 'gpu,'", "separated by ','"}},
      {{"--account", "proj #1"}, {"--account 'proj #1'", "is not a SLURM account name"}},
      {{"--account", "proj\r"}, {"--account 'proj\\r'", "contains a carriage return"}},
      // ---- --time: exactly SLURM's formats, fields after the first in range
      {{"--time", "abc"},
       {"--time 'abc' is not a SLURM time limit",
        "minutes, minutes:seconds, hours:minutes:seconds, days-hours, "
        "days-hours:minutes or days-hours:minutes:seconds",
        "UNLIMITED"}},
      {{"--time", "25:99:99"}, {"--time '25:99:99'", "the minutes (99) must be below 60", "hours:minutes:seconds"}},
      {{"--time", "2h"}, {"--time '2h' is not a SLURM time limit", "days-hours"}},
      {{"--time", "10:75"}, {"--time '10:75'", "the seconds (75) must be below 60"}},
      {{"--time", "1-24"}, {"--time '1-24'", "the hours (24) must be below 24"}},
      {{"--time", "1-2:60"}, {"--time '1-2:60'", "the minutes (60) must be below 60"}},
      {{"--time", "1-"}, {"--time '1-' is not a SLURM time limit"}},
      {{"--time", "1:2:3:4"}, {"--time '1:2:3:4' is not a SLURM time limit"}},
      {{"--time=-5"}, {"--time '-5' is not a SLURM time limit"}},
      {{"--time", "1.5"}, {"--time '1.5' is not a SLURM time limit"}},
      {{"--time", ""}, {"--time '' is not a SLURM time limit"}},
      {{"--time", "9999999999"}, {"--time '9999999999' is not a SLURM time limit"}},
      {{"--time", "99999999-0"}, {"--time '99999999-0' is longer than SLURM can hold"}},
      {{"--time", "01:00:00\n#SBATCH --partition=x"}, {"--time '01:00:00\\n#SBATCH", "contains a newline"}},
      // ---- options after --: one line each, none that repeats what repro writes itself
      {{"--gpus-per-task", "1", "--", "--gres=gpu:a100:1"},
       {"sbatch option '--gres=gpu:a100:1' (after --)", "conflicts with '#SBATCH --gres=gpu:1'", "for --gpus-per-task",
        "one way only"}},
      {{"--gpus-per-task", "1", "--", "--gpus=2"}, {"'--gpus=2'", "'#SBATCH --gres=gpu:1'", "--gpus-per-task"}},
      {{"--gpus-per-task", "1", "--", "-G", "1"}, {"'-G 1'", "'#SBATCH --gres=gpu:1'"}},
      {{"--gpus-per-task", "2", "--", "--gpus-per-node=2"}, {"'--gpus-per-node=2'", "'#SBATCH --gres=gpu:2'"}},
      {{"--time", "01:00:00", "--", "--time=10"},
       {"sbatch option '--time=10' (after --)", "conflicts with '#SBATCH --time=01:00:00'", "for --time"}},
      {{"--time", "5", "--", "-t", "10"}, {"'-t 10'", "'#SBATCH --time=5'"}},
      {{"--partition", "gpu", "--", "--part=debug"}, {"'--part=debug'", "'#SBATCH --partition=gpu'"}},
      {{"--partition", "gpu", "--", "-Hp", "debug"}, {"'-Hp debug'", "'#SBATCH --partition=gpu'"}},
      {{"--account", "a", "--", "-Ab"}, {"'-Ab'", "'#SBATCH --account=a'"}},
      {{"--cpus-per-task", "2", "--", "--cpus-per-gpu=4"}, {"'--cpus-per-gpu=4'", "'#SBATCH --cpus-per-task=2'"}},
      {{"--", "--array=0-3"}, {"'--array=0-3'", "'#SBATCH --array=0-<tasks-1>'", "itself", "--array-parallelism"}},
      {{"--", "--output=/tmp/x.out"}, {"'--output=/tmp/x.out'", "'#SBATCH --output=<launch folder>/%A_%a.out'"}},
      {{"--", "-o", "x.out"}, {"'-o x.out'", "#SBATCH --output="}},
      {{"--", "--signal=B:USR2@60"}, {"'--signal=B:USR2@60'", "'#SBATCH --signal=B:USR1@300'", "--signal-lead"}},
      {{"--", "--no-requeue"}, {"'--no-requeue'", "'#SBATCH --requeue'"}},
      {{"--", "-J", "mine"}, {"'-J mine'", "'#SBATCH --job-name=repro-<experiment>'"}},
      {{"--", "--open-mode=truncate"}, {"'--open-mode=truncate'", "'#SBATCH --open-mode=append'"}},
      {{"--", "--comment=a\ntouch INJECTED"}, {"'--comment=a\\ntouch INJECTED' (after --)", "contains a newline"}},
      {{"--", "--comment", ""}, {"'--comment ' (after --)", "has an empty value"}},
      {{"--", "--mem", "4G", "-"}, {"sbatch option '-' (after --) is not an option"}},
      // ---- setup lines: shell by design, but each exactly one complete line
      {{"--setup", "module load cuda\ntouch INJECTED"},
       {"--setup 'module load cuda\\ntouch INJECTED'", "contains a newline", "exactly one line"}},
      {{"--setup", "if true; then"}, {"--setup 'if true; then'", "is not a complete shell command", "bash -n"}},
      {{"--setup", "echo 'oops"}, {"--setup 'echo 'oops'", "is not a complete shell command"}},
      {{"--setup", "cat <<EOF"}, {"--setup 'cat <<EOF'", "is not a complete shell command", "here-document"}},
      {{"--setup", "module load cuda \\"}, {"--setup 'module load cuda \\'", "ends in a backslash"}},
      {{"--setup", "module load a\rmodule load b"}, {"contains a carriage return"}},
      {{"--setup-file", "@DIR@/absent.sh"}, {"--setup-file '", "absent.sh': no such file"}},
      {{"--setup-file", "@DIR@/crlf.sh"}, {"crlf.sh:1: contains a carriage return", "Windows line ending"}},
      {{"--setup-file", "@DIR@/open.sh"}, {"--setup-file '", "open.sh' is not complete shell code", "bash -n"}},
      {{"--setup-file", "@DIR@/continued.sh"}, {"continued.sh' ends in a backslash"}},
      // ---- paths and overrides in the exec line and in the comments: one line; --out also in --output
      {{"--out", "@DIR@/runs\ntouch INJECTED"}, {"--out '", "runs\\ntouch INJECTED' contains a newline"}},
      {{"--out", "@DIR@/run\\s"}, {"--out '", "contains a backslash", "%A_%a"}},
      {{"--data-root", "@DIR@/data\n#SBATCH --x"}, {"--data-root '", "data\\n#SBATCH --x' contains a newline"}},
      {{"data.files=test=a\ntouch INJECTED"}, {"override 'data.files=test=a\\ntouch INJECTED' contains a newline"}},
      {{}, {"spec path '", "two\\nlines.yaml' contains a newline"}, "two\nlines.yaml"},
      // ---- numbers: the option's name, the value, what is allowed (was "Value 0 not in range 0.000000 to 1.797e308")
      {{"--runs-per-task", "0"}, {"--runs-per-task", "got 0: must be ≥ 1"}},
      {{"--gpus-per-task", "-1"}, {"--gpus-per-task", "got -1: must be ≥ 0"}},
      {{"--signal-lead", "1.5"}, {"--signal-lead", "got '1.5', expected a whole number ≥ 0"}},
  };
  return rows;
}

}  // namespace

TEST_CASE("bad launch slurm inputs are refused before anything is written, naming the option and the value", "[cli]") {
  test::TempDir dir("bad-slurm");
  test::write_text(dir.path() / "crlf.sh", "module load cuda\r\n");
  test::write_text(dir.path() / "open.sh", "if true; then\n  module load cuda\n");
  test::write_text(dir.path() / "continued.sh", "module load cuda \\\n");
  const fs::path out = dir.path() / "runs";
  const auto& rows = bad_launches();
  for (const auto& row : rows) test::write_text(dir.path() / row.spec, kTinySlurmSpec);
  // A refused launch leaves the folder as it was (an --out of a row included).
  const auto files_before = std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator());
  CHECK(rows.size() >= 40);
  for (size_t i = 0; i < rows.size(); ++i) {
    const BadLaunch& row = rows[i];
    const bool own_out = std::find(row.arguments.begin(), row.arguments.end(), "--out") != row.arguments.end();
    std::string arguments = "launch slurm " + sh((dir.path() / row.spec).string()) +
                            (own_out ? std::string("") : " --out " + sh(out.string())) + " --dry-run";
    for (const auto& argument : row.arguments) arguments += " " + sh(with_dir(argument, dir.path()));
    const test::Result result = test::run_repro(arguments);
    INFO("row " << i << ": " << arguments << "\n" << result.output);
    CHECK(result.exit_code == 2);
    CHECK(starts_with(result.output, "repro: error: "));
    CHECK(split_lines(result.output).size() == 1);  // one line, whatever the value held
    for (const auto& word : row.expected) CHECK_THAT(result.output, Contains(with_dir(word, dir.path())));
    CHECK_FALSE(fs::exists(out));  // no plan.json, tasks.json or script
    CHECK(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()) == files_before);
    CHECK_FALSE(fs::exists(dir.path() / "INJECTED"));
    fs::remove_all(out);  // (what a row that went through wrote)
  }
  // The same launch with good values of every option above goes through.
  test::write_text(dir.path() / "spec.yaml", kTinySlurmSpec);
  const std::string good = "launch slurm " + sh((dir.path() / "spec.yaml").string()) + " --out " + sh(out.string()) +
                           " --dry-run --partition gpu,debug --time 1-12:30 --account proj_1 --gpus-per-task 1 "
                           "--cpus-per-task 2 --setup 'module load cuda/12.4' -- --qos=low --comment 'a b'";
  const auto accepted = test::run_repro(good);
  INFO(accepted.output);
  CHECK(accepted.exit_code == 0);
}
