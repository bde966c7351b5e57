#pragma once
// CUDA graphs for one TrainStep (train/step.h): its own CUDA stream, its own graph memory pool and the graphs
// captured on them, one per input shape. What a graph is: the kernels of one call of a body (the step's forward
// ... update, or an evaluation forward) recorded once and launched again as one unit, so that a step costs one
// launch instead of hundreds. Only in builds with CUDA and LibTorch >= 2.4 (REPRO_CUDA_GRAPHS); elsewhere run()
// calls the body, the scope does nothing and enabled() is false.
//
// The rules a body keeps (train/step.cpp's do): it reads only tensors that outlive the graph (static inputs
// filled by copy_ before each run, parameters, gradients, optimizer state, the learning rate tensor) and writes
// its results into tensors allocated before (static outputs); no host read (.item(), a data-dependent shape)
// and no host number that changes between calls. What it allocates inside comes from the lane's pool and is
// dead by the body's end, so a lane's graphs share the pool in any replay order; they replay one at a time, on
// the lane's stream.
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <vector>

namespace repro {

// Whether this build can capture CUDA graphs (CUDA, LibTorch >= 2.4: graph-safe generator states).
bool cuda_graphs_built();

class GraphLane {
 public:
  // enabled: capture and replay (train.cuda_graphs = auto on a CUDA device in a build that has them); otherwise
  // run() calls the body every time. On a CUDA device (graphs or not) the lane has a stream of its own.
  // thread_local_capture: CUDA's thread-local capture mode instead of the global one (LibTorch's default), for
  // lanes on several threads of one process: in the global mode one lane's capture makes another thread's
  // synchronising call (a host read) an error.
  GraphLane(torch::Device device, bool enabled, bool thread_local_capture = false);
  ~GraphLane();
  GraphLane(const GraphLane&) = delete;
  GraphLane& operator=(const GraphLane&) = delete;

  // While alive, this thread's device work goes to the lane's stream: it waits for the stream that was current
  // before (data copied there) and, at the end, that stream waits for it. Does nothing off CUDA.
  class Scope {
   public:
    Scope(Scope&& other) noexcept;
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    Scope& operator=(Scope&&) = delete;

   private:
    friend class GraphLane;
    struct State;
    explicit Scope(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
  };
  [[nodiscard]] Scope enter();

  // Runs `body` for inputs of shape `shape` (any numbers that identify it: sizes, a mode). First sight: `body`
  // eagerly (the warm-up of that shape, a real call on the lane's stream). Second sight: captured, then
  // replayed; every later sight: replayed. A capture that fails prints one warning line, runs `body` eagerly and
  // turns the lane's graphs off for good (never a wrong result: nothing of a failed capture has run). At most
  // kMaxGraphs shapes are captured; further shapes run eagerly.
  void run(const std::vector<int64_t>& shape, const std::function<void()>& body);

  static constexpr int kMaxGraphs = 16;
  bool enabled() const { return enabled_; }
  int64_t replays() const { return replays_; }
  int graphs() const;

 private:
  struct Impl;
  bool enabled_;
  int64_t replays_ = 0;
  std::unique_ptr<Impl> impl_;
};

}  // namespace repro
