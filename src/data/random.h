#pragma once
// The random generators of one run. Every random draw a run makes while it trains (its data order, its images'
// augmentation, its dropout masks) comes from generators that belong to that run, seeded from its seed alone, so
// that a run's numbers do not depend on what else runs in the process (the lanes executor trains K runs on K
// threads of one process: run/executor.h). The trainer owns a run's generators and, while a RunRandomScope is alive
// on its thread, every draw below goes to them:
//   draw_generator(device)  the generator a draw on `device` takes: the run's of this thread, else LibTorch's default
//                           one (tests, `repro bench`, anything outside a run)
// The CPU generator is ATen's mt19937 generator and seed(s) seeds it as torch::manual_seed(s) seeds the default
// one, so a run's CPU draws equal those of repro 0.7.2 and earlier (which reseeded the default generator per epoch). The
// CUDA generator (CUDA builds, on a CUDA device) is a Philox generator of that device, registered with every CUDA
// graph its run captures (train/cuda_graph.cpp), so that graph replays advance the run's own offsets.
#include <torch/torch.h>

#include <cstdint>

namespace repro {

class RunGenerators {
 public:
  explicit RunGenerators(torch::Device device);  // unseeded until seed()
  // Both generators, as torch::manual_seed(seed) seeds the default ones.
  void seed(uint64_t seed);
  // The generator of draws on `device` (the CPU's for a CPU tensor).
  at::Generator& of(torch::Device device);
  at::Generator& cpu() { return cpu_; }

  // The generators' states (uint8 tensors on the CPU, as at::Generator::get_state gives them), for checkpoints;
  // `cuda` undefined when the run has no CUDA generator.
  struct States {
    torch::Tensor cpu, cuda;
  };
  States states();
  void restore(const States& states);  // an undefined state leaves its generator as it is

 private:
  at::Generator cpu_;
  at::Generator cuda_;  // undefined off CUDA
};

// While alive, this thread's draws come from `generators` (scopes nest; the innermost wins).
class RunRandomScope {
 public:
  explicit RunRandomScope(RunGenerators& generators);
  ~RunRandomScope();
  RunRandomScope(const RunRandomScope&) = delete;
  RunRandomScope& operator=(const RunRandomScope&) = delete;

 private:
  RunGenerators* previous_;
};

// The generator a draw on `device` takes on this thread: its run's where a RunRandomScope is alive, else LibTorch's
// default generator of that device.
at::Generator draw_generator(torch::Device device);

// Whether a run's generators are in scope on this thread.
bool run_random_in_scope();

}  // namespace repro
