#pragma once
// `repro launch slurm`: the runs of a plan that are not finished, frozen into a
// manifest (array index -> run folder), and the sbatch script of a job array whose
// tasks run `repro run SPEC --manifest M --index $SLURM_ARRAY_TASK_ID`.
//   <out>/<experiment>[/<profile>]/slurm/<stamp>/manifest.tsv, submit.sbatch, %A_%a.out
// The manifest keeps indices stable when the spec changes later: a row whose run
// folder is no longer in the plan is refused, naming the manifest line.
#include <filesystem>
#include <string>
#include <vector>

#include "spec/grid.h"

namespace repro {

struct ManifestRow {
  int64_t index = 0;       // 0-based row number
  std::string run_folder;  // relative to --out: <experiment>[/<profile>]/<dataset>/<model_config>/seed_<k>
  std::string model_config, dataset;
  int64_t seed = 0;
};

struct RunManifest {
  std::string spec_file, profile;
  int64_t runs_per_task = 1;
  std::vector<ManifestRow> rows;
  int64_t tasks() const { return (static_cast<int64_t>(rows.size()) + runs_per_task - 1) / runs_per_task; }
};

std::string manifest_tsv(const RunManifest& manifest);
// Throws repro::Error "PATH:LINE: what" for a malformed file.
RunManifest read_manifest(const std::filesystem::path& path);

// The plan positions (indices into `runs`) of task `task`: manifest rows task*K .. task*K+K-1.
// Throws naming the manifest line of a row whose run folder is not in `runs`, or a task past the end.
std::vector<int64_t> manifest_positions(const std::filesystem::path& path, int64_t task,
                                        const std::vector<PlannedRun>& runs);

struct LaunchOptions {
  std::string repro_binary;           // absolute path of the repro that the tasks exec
  std::vector<std::string> run_args;  // `repro run` arguments: SPEC, overrides, --profile, --out, ...
  std::string job_name;
  std::string partition, time;  // "" = the cluster's default
  int gpus_per_task = 0, cpus_per_task = 0;
  int64_t runs_per_task = 1;
  int array_parallelism = 0;  // %M; 0 = no limit
  int signal_lead = 300;      // seconds before the time limit that USR1 (or USR2) is sent
  std::string requeue_signal = "USR1";
  std::vector<std::string> sbatch_args;  // extra #SBATCH lines, verbatim
};

// One array of the launch: tasks [first, first + count) of the manifest.
struct ArrayPart {
  int64_t first = 0, count = 0;
  std::filesystem::path script;
};

// Splits `tasks` into arrays of at most `max_array_size` tasks: submit.sbatch, then submit.1.sbatch, ...
std::vector<ArrayPart> array_parts(int64_t tasks, int64_t max_array_size, const std::filesystem::path& dir);
// The sbatch script of one part (the task's manifest index is $SLURM_ARRAY_TASK_ID + part.first).
std::string sbatch_script(const LaunchOptions& options, const std::filesystem::path& manifest, const ArrayPart& part,
                          const std::filesystem::path& dir);

// The cluster's MaxArraySize from `scontrol show config` (1001, SLURM's default, when it cannot be read).
int64_t cluster_max_array_size();
// `sbatch --parsable SCRIPT`: the job id; throws repro::Error with sbatch's output when it fails.
std::string submit_sbatch(const std::filesystem::path& script);

// '...' quoting for a shell command line.
std::string shell_quote(const std::string& text);

}  // namespace repro
