#pragma once
// What may watch a run from inside the trainer: one pointer, RunnerOptions::observer → TrainContext::observer,
// null in repro. The tests' fault injector (tests/fault_injector.h, also the repro-faults binary) kills, signals or
// stops a run through it.
#include <cstdint>

namespace repro {

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  // After every optimizer step of the run at `position` of the plan (`step`: 1-based over the whole run).
  virtual void after_step(int64_t position, int64_t step) const {}
  // After epoch `epoch`'s checkpoint (the final epoch's too): true ends the run there as an interrupted one
  // (RunState::Interrupted, no summary.json; the command exits kRunStopped, as no signal arrived).
  virtual bool stop_after_epoch(int64_t epoch) const { return false; }
};

}  // namespace repro
