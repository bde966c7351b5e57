#pragma once
// `repro launch slurm`: the runs of a plan that are not finished, frozen into tasks.json (record/task_plan.h: each
// run's identity and resolved spec, array task i -> runs i*K .. i*K+K-1), and the sbatch script of a job array
// whose tasks run `repro run --tasks FILE --index $SLURM_ARRAY_TASK_ID`.
//   <out>/<experiment>[/<profile>]/slurm/<stamp>/tasks.json, submit.sbatch, %A_%a.out
// A task trains what was frozen at launch: it reads neither the spec file nor the grid again, so editing the spec
// after the launch changes nothing it does (a run folder that meanwhile holds a run of another spec is refused).
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "spec/grid.h"

namespace repro {

struct LaunchOptions {
  std::string repro_binary;           // absolute path of the repro that the tasks exec
  std::vector<std::string> run_args;  // `repro run` arguments besides --tasks and --index: --out, --data-root, ...
  std::string job_name;
  std::string partition, time, account;  // "" = the cluster's default
  int gpus_per_task = 0, cpus_per_task = 0;
  int64_t runs_per_task = 1;
  int array_parallelism = 0;  // %M; 0 = no limit
  int signal_lead = 300;      // seconds before the time limit that USR1 (or USR2) is sent
  std::string requeue_signal = "USR1";
  // Extra sbatch options (given after --), one #SBATCH line each: the option word, then its values.
  std::vector<std::vector<std::string>> sbatch_options;
  // Shell lines run before the exec (--setup-file's lines, then each --setup), written as given.
  std::vector<std::string> setup;
};

// What the SLURM executor (run/executor.h: slurm_executor) submits, besides the plan: the scripts' options, where the
// runs go and the plan's folder under it, the spec file tasks.json records, and whether to stop before sbatch.
struct SlurmSubmission {
  LaunchOptions launch;
  std::filesystem::path out;      // absolute
  std::string experiment_folder;  // <experiment>[/<profile>] below `out`
  std::string spec_file;          // absolute
  bool dry_run = false;           // write tasks.json and the scripts, print the first, submit nothing
};

// One array of the launch: tasks [first, first + count) of tasks.json.
struct ArrayPart {
  int64_t first = 0, count = 0;
  std::filesystem::path script;
};

// Splits `tasks` into arrays of at most `max_array_size` tasks: submit.sbatch, then submit.1.sbatch, ...
std::vector<ArrayPart> array_parts(int64_t tasks, int64_t max_array_size, const std::filesystem::path& dir);
// The sbatch script of one part (the task's index in tasks.json is $SLURM_ARRAY_TASK_ID + part.first); throws
// (check_launch_options) for a value that cannot be written into it safely.
std::string sbatch_script(const LaunchOptions& options, const std::filesystem::path& tasks, const ArrayPart& part,
                          const std::filesystem::path& dir);

// The cluster's MaxArraySize from `scontrol show config` (1001, SLURM's default, when it cannot be read).
int64_t cluster_max_array_size();
// A command's stdout and stderr, and its exit status (127 when it cannot run): scontrol, sbatch, `bash -n`.
std::pair<int, std::string> command_output(const std::string& command);
// `sbatch --parsable SCRIPT`: the job id; throws repro::Error with sbatch's output when it fails.
std::string submit_sbatch(const std::filesystem::path& script);

// ---- Values in submit.sbatch. Its #SBATCH lines are read by sbatch, not by a shell, so they cannot be
// shell-quoted; its command lines are read by bash. Every check throws repro::Error with one line naming the
// option, the value (control characters shown as \n, \r, \t, \0, \xHH) and what is expected.

// One word for a POSIX sh command line: as it is when it has only characters no shell treats specially,
// else in '...' with each ' written '\''.
std::string shell_quote(const std::string& text);
// One word of an #SBATCH line as sbatch reads it back: as it is when plain, else in "..." with \" and \\.
// Throws for an empty word or a control character, which an #SBATCH line cannot carry.
std::string sbatch_quote(const std::string& word);
// `text` in '...' for a one-line message, control characters written as \n, \r, \t, \0, \xHH.
std::string quoted_for_message(const std::string& text);

// `value` (of `option`, e.g. "--data-root") has no control character (newline, CR, tab, NUL, ...).
void check_one_line(const std::string& option, const std::string& value);
// --time: one of SLURM's formats (minutes, minutes:seconds, hours:minutes:seconds, days-hours,
// days-hours:minutes, days-hours:minutes:seconds; UNLIMITED or INFINITE), every field after the first in range.
void check_time_limit(const std::string& value);
// --partition (a comma-separated list) and --account: letters, digits, '_', '-', '.'.
void check_partition(const std::string& value);
void check_account(const std::string& value);
// --out: one line and no backslash (SLURM turns off the %A_%a of --output for a path with one).
void check_output_folder(const std::string& absolute_out);
// The options after --: each one line, an option word first, no empty word, none that repeats an option
// that repro writes itself (--gres/--gpus* with --gpus-per-task, --time with --time, --array, --output, ...).
void check_sbatch_options(const LaunchOptions& options);
// One --setup line: no control character but tab, complete for `bash -n`, no trailing backslash.
void check_setup_line(const std::string& line);
// --setup-file's lines, checked like --setup lines, except that a command may span lines within the file.
std::vector<std::string> read_setup_file(const std::filesystem::path& path);
// Everything sbatch_script writes: the checks above (but bash -n) and every `repro run` argument one line.
void check_launch_options(const LaunchOptions& options);

}  // namespace repro
