// The SLURM executor (run/executor.h): a plan's runs not finished, frozen into tasks.json, as a job array whose tasks
// train them where SLURM puts them (run/slurm.h writes the scripts).
#include <sys/stat.h>

#include <chrono>
#include <ctime>
#include <iostream>

#include "record/task_plan.h"
#include "run/executor.h"
#include "run/plan.h"
#include "run/slurm.h"
#include "run/status.h"
#include "util/files.h"
#include "util/strings.h"

namespace repro {

namespace {

namespace fs = std::filesystem;

// "20261122-093015" (UTC), made unique within `parent`.
fs::path stamped_folder(const fs::path& parent) {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::gmtime(&now));
  fs::path dir = parent / stamp;
  for (int k = 2; fs::exists(dir); ++k) dir = parent / (std::string(stamp) + "-" + std::to_string(k));
  return dir;
}

class SlurmExecutor : public Executor {
 public:
  explicit SlurmExecutor(SlurmSubmission submission) : s_(std::move(submission)) {}

  int execute(const Plan& plan) override {
    std::vector<const PlannedRun*> to_train;
    for (const size_t i : plan.to_train()) to_train.push_back(&plan.runs[i]);
    if (to_train.empty()) {
      std::cout << "all " << plan.runs.size() << " runs of " << s_.experiment_folder
                << " are finished: nothing to launch\n";
      return 0;
    }
    const fs::path dir = stamped_folder(s_.out / s_.experiment_folder / "slurm");
    const fs::path tasks_path = dir / kTaskPlanFile;
    freeze_tasks(tasks_path, to_train, s_.spec_file, s_.launch.runs_per_task);
    const int64_t tasks = read_task_plan(tasks_path).tasks();
    const auto parts = array_parts(tasks, cluster_max_array_size(), dir);
    for (const auto& part : parts) {
      write_file_atomic(part.script, sbatch_script(s_.launch, tasks_path, part, dir));
      ::chmod(part.script.c_str(), 0755);
    }
    std::cout << to_train.size() << " of " << plan.runs.size() << " runs are not finished: " << tasks
              << " array task(s) of " << s_.launch.runs_per_task << " run(s) in " << parts.size() << " array(s)\n"
              << "tasks: " << tasks_path.string() << "\n";
    for (const auto& part : parts) std::cout << "script:   " << part.script.string() << "\n";
    if (s_.dry_run) {
      std::cout << "\n"
                << read_regular_file(parts.front().script, kRecordBytes, "a batch script")
                << "\n--dry-run: nothing submitted; submit with: sbatch " << shell_quote(parts.front().script.string())
                << "\n";
      return 0;
    }
    std::vector<std::string> jobs;
    for (const auto& part : parts) {
      jobs.push_back(submit_sbatch(part.script));
      // Rewritten after every submission, so that `repro status` knows a job even when a later part fails.
      write_file_atomic(dir / kSubmittedJobsFile, join(jobs, "\n") + "\n");
      std::cout << "submitted job " << jobs.back() << " (array 0-" << part.count - 1 << ", tasks " << part.first << "-"
                << part.first + part.count - 1 << ")\n";
    }
    const std::string job_list = join(jobs, ",");
    std::cout << "follow it:\n"
              << "  squeue -j " << job_list << "\n"
              << "  " << shell_quote(s_.launch.repro_binary) << " status " << shell_quote(s_.out.string()) << "\n"
              << "  tail -f " << shell_quote(dir.string()) << "/*.out\n"
              << "  scancel " << job_list << "\n";
    return 0;
  }

 private:
  SlurmSubmission s_;
};

}  // namespace

std::unique_ptr<Executor> slurm_executor(const SlurmSubmission& submission) {
  return std::make_unique<SlurmExecutor>(submission);
}

}  // namespace repro
