#include "data/random.h"

#include <mutex>

#ifdef REPRO_CUDA
#include <c10/cuda/CUDAFunctions.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>
#endif

namespace repro {

namespace {

thread_local RunGenerators* current = nullptr;

at::Generator cuda_generator_of(torch::Device device) {
#ifdef REPRO_CUDA
  if (device.is_cuda())
    return at::cuda::detail::createCUDAGenerator(device.has_index() ? device.index() : c10::cuda::current_device());
#endif
  (void)device;
  return {};
}

torch::Tensor state_of(at::Generator& generator) {
  std::lock_guard<std::mutex> lock(generator.mutex());
  return generator.get_state();
}

void set_state(at::Generator& generator, const torch::Tensor& state) {
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(state);
}

}  // namespace

RunGenerators::RunGenerators(torch::Device device)
    : cpu_(at::detail::createCPUGenerator()), cuda_(cuda_generator_of(device)) {}

void RunGenerators::seed(uint64_t seed) {
  for (at::Generator* generator : {&cpu_, &cuda_}) {
    if (!generator->defined()) continue;
    std::lock_guard<std::mutex> lock(generator->mutex());
    generator->set_current_seed(seed);
  }
}

at::Generator& RunGenerators::of(torch::Device device) { return device.is_cuda() && cuda_.defined() ? cuda_ : cpu_; }

RunGenerators::States RunGenerators::states() {
  States out;
  out.cpu = state_of(cpu_);
  if (cuda_.defined()) out.cuda = state_of(cuda_);
  return out;
}

void RunGenerators::restore(const States& states) {
  if (states.cpu.defined()) set_state(cpu_, states.cpu);
  if (states.cuda.defined() && cuda_.defined()) set_state(cuda_, states.cuda);
}

RunRandomScope::RunRandomScope(RunGenerators& generators) : previous_(current) { current = &generators; }

RunRandomScope::~RunRandomScope() { current = previous_; }

at::Generator draw_generator(torch::Device device) {
  if (current) return current->of(device);
  if (device.is_cuda()) return at::globalContext().defaultGenerator(device);
  return at::detail::getDefaultCPUGenerator();
}

bool run_random_in_scope() { return current != nullptr; }

}  // namespace repro
