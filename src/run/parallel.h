#pragma once
// `repro run --jobs N`, the children executor (run/executor.h): each run of the plan in its own child process, up
// to N at once, so that a crash or an out-of-memory kill of one run never takes the others down. The runs to train
// are frozen into tasks.json (record/task_plan.h) and each child trains one task of it
// (`repro <child_arguments> --tasks FILE --index I --threads T`): it reads no spec and expands no grid. Children
// claim their run by its folder lock as a single `repro run` does; the parent only skips runs it sees finished or
// held, forwards SIGINT/SIGTERM to its children and waits.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "run/device_choice.h"
#include "run/interrupt.h"
#include "run/plan.h"
#include "run/time_limit.h"
#include "spec/grid.h"

namespace repro {

struct ParallelOptions {
  int jobs = 1;   // > 1: run_experiment trains in children
  int lanes = 1;  // runs trained at once in this process, one thread each (the in-process executor, run/executor.h)
  int threads_per_job = 1;  // LibTorch threads of each run (each child's, each lane's)
  std::vector<int> devices;  // CUDA device ids (indices into the parent's visible devices); empty: CPU
  int runs_per_device = 1;
  std::string executable = "/proc/self/exe";
  // The child's command line before `--tasks FILE --index I --threads T`: global options, `run`, and every option
  // that says where runs go and how they run (--out, --data-root, --device, the signals, checkpoints).
  std::vector<std::string> child_arguments;
  std::vector<std::string> extra_environment;  // NAME=VALUE set in every child
  bool live_progress = false;
  InterruptPolicy interrupt;  // the requeue signal, passed to children as SIGTERM (only the parent requeues)
};

// What a command asks of parallelism: --jobs, --lanes, --threads, --threads-per-job, --devices, --runs-per-device.
struct ParallelRequest {
  DeviceChoice device = DeviceChoice::Auto;
  int jobs = 0;             // 0: 1 on the CPU, devices x runs per device with CUDA
  int lanes = 1;            // --lanes: runs at once in this process (not with jobs > 1)
  int threads = 0;          // --threads (0: default)
  int threads_per_job = 0;  // --threads-per-job (0: usable CPUs / jobs)
  std::string devices;      // "0,1"; "": every visible CUDA device (none with --device cpu)
  int runs_per_device = 1;
  bool log_plan = true;     // log the thread plan when jobs > 1
  bool in_process = false;  // --index (a run, or a task of --tasks): trained here; no jobs, no devices handed out
};
// Jobs, devices and threads of a command that trains: --devices checked against the CUDA devices, the threads
// against the usable CPUs (run/threads.h), LibTorch's threads set from the plan. Throws repro::Error naming the
// option. The executable and the children's command line are the caller's to fill.
ParallelOptions plan_parallel(const ParallelRequest& request);

// Trains the runs at `positions` of `runs` (those not finished) in child processes, child k training task k of
// `tasks_file` (the runs at `positions`, frozen in that order).
// SIGINT/SIGTERM (and the requeue signal, as SIGTERM) are passed on to the children, no
// new run starts, and the parent ends as run/interrupt.h's finish_interrupted says
// (128 + the signal, or requeued under SLURM). Otherwise returns 0 when every child ended
// with its run complete, diverged or held elsewhere, 1 when a run failed (a child exited
// 1 or was killed), 3 (kRunStopped) when a child's RunObserver stopped it or `limit` left a run
// unstarted (run/time_limit.h; at the limit itself the children stop as on SIGTERM). Throws repro::Error with the child's message when
// a child hit an error that would stop every run (exit 2: a write error), after the others ended.
int run_in_children(const std::vector<PlannedRun>& runs, const std::vector<size_t>& positions,
                    const std::filesystem::path& tasks_file, const std::filesystem::path& out,
                    const ParallelOptions& options, const TimeLimit& limit = TimeLimit());

// Hands out GPUs to children: round robin over `devices`, at most `per_device` children on each.
class DeviceSlots {
 public:
  DeviceSlots(std::vector<int> devices, int per_device);
  // The next device after the last one handed out that has a free slot; none when all are full.
  std::optional<int> acquire();
  void release(int device);
  int capacity() const { return static_cast<int>(devices_.size()) * per_device_; }

 private:
  std::vector<int> devices_;
  std::vector<int> in_use_;
  int per_device_;
  size_t next_ = 0;
};

// "0,2,3" -> {0, 2, 3}; throws repro::Error naming `where` for anything else (empty, negative, repeated).
std::vector<int> parse_devices(const std::string& text, const std::string& where);
// The CUDA_VISIBLE_DEVICES value a child gets for device `id` of the parent's visible devices:
// the id-th entry of the parent's own $CUDA_VISIBLE_DEVICES when that is set, else the id.
std::string child_visible_device(const char* parent_visible, int id);

}  // namespace repro
