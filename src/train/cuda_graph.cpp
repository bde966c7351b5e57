#include "train/cuda_graph.h"

#include <spdlog/spdlog.h>

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "data/random.h"
#include "util/error.h"

#if defined(REPRO_CUDA) && (TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4))
#define REPRO_CUDA_GRAPHS 1
#include <ATen/autocast_mode.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#endif

namespace repro {

#ifdef REPRO_CUDA_GRAPHS

namespace {

// Captures are serialised across the lanes of a process: a capture registers the default CUDA generator (and the
// run's own: data/random.h), and the default one's graph-safe state holds one capture at a time.
std::mutex& capture_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

struct GraphLane::Impl {
  c10::DeviceIndex device;
  c10::cuda::CUDAStream stream;
  c10::cuda::MempoolId_t pool;  // the memory pool every graph of this lane captures into
  struct Entry {
    int seen = 0;
    std::unique_ptr<at::cuda::CUDAGraph> graph;
  };
  std::map<std::vector<int64_t>, Entry> entries;
  cudaStreamCaptureMode mode;
  int captured = 0;
  bool failed = false;

  Impl(c10::DeviceIndex index, bool thread_local_capture)
      : device(index), stream(c10::cuda::getStreamFromPool(/*isHighPriority=*/false, index)),
        pool(at::cuda::graph_pool_handle()),
        mode(thread_local_capture ? cudaStreamCaptureModeThreadLocal : cudaStreamCaptureModeGlobal) {}

  // Captures `body` into a new graph; false (after one warning line) when the capture fails.
  bool capture(Entry& entry, const std::function<void()>& body);
  // After a failed capture: the stream out of capture mode, the allocator's routing into the pool ended, and
  // the default and the run's generator out of their capturing state (a trivial capture that succeeds runs their
  // epilogue).
  void abandon(at::cuda::CUDAGraph& graph);
};

bool GraphLane::Impl::capture(Entry& entry, const std::function<void()>& body) {
  std::lock_guard<std::mutex> lock(capture_mutex());
  auto graph = std::make_unique<at::cuda::CUDAGraph>();
  const bool autocast_cache = at::autocast::is_autocast_cache_enabled();
  stream.synchronize();  // nothing of this lane in flight while capturing (once per shape)
  at::autocast::set_autocast_cache_enabled(false);  // no bf16 weight copies cached across replays
  try {
    // The run's own CUDA generator (data/random.h), so that its draws inside the graph advance on every replay;
    // capture_begin registers the default generator itself.
    if (run_random_in_scope())
      graph->register_generator_state(draw_generator(torch::Device(torch::kCUDA, device)));
    graph->capture_begin(pool, mode);
    body();
    graph->capture_end();
  } catch (const std::exception& e) {
    at::autocast::set_autocast_cache_enabled(autocast_cache);
    spdlog::warn("train.cuda_graphs: capturing the step failed ({}); this run goes on with the eager step (the same "
                 "numbers, slower)",
                 first_line(e.what()));
    abandon(*graph);
    failed = true;
    entries.clear();  // the graphs captured before are not replayed again
    return false;
  }
  at::autocast::set_autocast_cache_enabled(autocast_cache);
  entry.graph = std::move(graph);
  ++captured;
  return true;
}

void GraphLane::Impl::abandon(at::cuda::CUDAGraph& graph) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream.stream(), &status) == cudaSuccess && status != cudaStreamCaptureStatusNone) {
    try {
      graph.capture_end();  // ends the stream's capture; throws on the invalidated capture
    } catch (const std::exception&) {
    }
  }
  (void)cudaGetLastError();  // a failed capture's error is not sticky: clear it
  try {
    c10::cuda::CUDACachingAllocator::endAllocateToPool(device, pool);  // when capture_end did not get that far
  } catch (const std::exception&) {
  }
  try {  // the generator's capture epilogue, through a capture that cannot fail
    const auto scratch = torch::zeros({1}, torch::TensorOptions().device(torch::kCUDA, device));
    at::cuda::CUDAGraph reset;
    if (run_random_in_scope())  // the run's generator was registered with the failed capture too
      reset.register_generator_state(draw_generator(torch::Device(torch::kCUDA, device)));
    reset.capture_begin();
    scratch.add_(1);
    reset.capture_end();
  } catch (const std::exception& e) {
    throw Error(std::string("train.cuda_graphs: a CUDA graph capture failed and the CUDA state could not be "
                            "restored after it (") + first_line(e.what()) + "); rerun with train.cuda_graphs=off");
  }
}

struct GraphLane::Scope::State {
  c10::cuda::CUDAStream previous, lane;
};

GraphLane::Scope::Scope(std::unique_ptr<State> state) : state_(std::move(state)) {
  if (!state_) return;
  at::cuda::CUDAEvent ready;  // the lane starts after what was queued on the previous stream (data copies)
  ready.record(state_->previous);
  ready.block(state_->lane);
  c10::cuda::setCurrentCUDAStream(state_->lane);
}

GraphLane::Scope::~Scope() {
  if (!state_) return;
  at::cuda::CUDAEvent done;  // the previous stream goes on after the lane's work
  done.record(state_->lane);
  done.block(state_->previous);
  c10::cuda::setCurrentCUDAStream(state_->previous);
}

GraphLane::GraphLane(torch::Device device, bool enabled, bool thread_local_capture)
    : enabled_(enabled && device.is_cuda()) {
  if (device.is_cuda()) impl_ = std::make_unique<Impl>(device.has_index() ? device.index() : 0, thread_local_capture);
}

GraphLane::Scope GraphLane::enter() {
  if (!impl_) return Scope(nullptr);
  return Scope(std::make_unique<Scope::State>(
      Scope::State{c10::cuda::getCurrentCUDAStream(impl_->device), impl_->stream}));
}

void GraphLane::run(const std::vector<int64_t>& shape, const std::function<void()>& body) {
  if (!enabled_ || !impl_ || impl_->failed) return body();
  // Off the lane's stream (a caller without enter()): go onto it for this call.
  std::optional<Scope> scope;
  if (c10::cuda::getCurrentCUDAStream(impl_->device) != impl_->stream) scope.emplace(enter());
  auto found = impl_->entries.find(shape);
  if (found == impl_->entries.end()) {
    if (impl_->entries.size() >= 4 * static_cast<size_t>(kMaxGraphs)) return body();  // shapes beyond counting
    found = impl_->entries.emplace(shape, Impl::Entry{}).first;
  }
  Impl::Entry& entry = found->second;
  if (!entry.graph) {
    const bool first_sight = entry.seen++ == 0;
    if (first_sight || impl_->captured >= kMaxGraphs || !impl_->capture(entry, body)) return body();
  }
  entry.graph->replay();
  ++replays_;
}

int GraphLane::graphs() const { return impl_ ? impl_->captured : 0; }

bool cuda_graphs_built() { return true; }

#else  // no CUDA graphs in this build: the body runs every time

struct GraphLane::Impl {};
struct GraphLane::Scope::State {};
GraphLane::Scope::Scope(std::unique_ptr<State> state) : state_(std::move(state)) {}
GraphLane::Scope::~Scope() = default;
GraphLane::GraphLane(torch::Device, bool, bool) : enabled_(false) {}
GraphLane::Scope GraphLane::enter() { return Scope(nullptr); }
void GraphLane::run(const std::vector<int64_t>&, const std::function<void()>& body) { body(); }
int GraphLane::graphs() const { return 0; }
bool cuda_graphs_built() { return false; }

#endif

GraphLane::~GraphLane() = default;
GraphLane::Scope::Scope(Scope&& other) noexcept = default;

}  // namespace repro
