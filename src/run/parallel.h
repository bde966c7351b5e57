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

#include "run/parallel_plan.h"
#include "run/plan.h"
#include "run/time_limit.h"
#include "spec/grid.h"

namespace repro {

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


}  // namespace repro
