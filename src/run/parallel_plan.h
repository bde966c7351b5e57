#pragma once
// How a command that trains runs in parallel: --jobs (children, run/parallel.h), --lanes (threads of this process,
// run/executor.h), --threads, --threads-per-job, --devices and --runs-per-device, checked against the CUDA devices
// and the usable CPUs (run/threads.h) and turned into one plan.
#include <string>
#include <vector>

#include "run/device_choice.h"
#include "run/interrupt.h"

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

// "0,2,3" -> {0, 2, 3}; throws repro::Error naming `where` for anything else (empty, negative, repeated).
std::vector<int> parse_devices(const std::string& text, const std::string& where);
// The CUDA_VISIBLE_DEVICES value a child gets for device `id` of the parent's visible devices:
// the id-th entry of the parent's own $CUDA_VISIBLE_DEVICES when that is set, else the id.
std::string child_visible_device(const char* parent_visible, int id);

}  // namespace repro
