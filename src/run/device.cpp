#include "run/device.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <algorithm>
#include <regex>

#include "models/cpu_ops.h"
#include "util/cpu_kernels.h"
#include "util/error.h"
#include "util/files.h"
#include "util/memory.h"
#include "util/version.h"

#ifdef REPRO_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime_api.h>
#endif

namespace repro {

const EnumNames<DeviceChoice>& enum_names(DeviceChoice) {
  static const EnumNames<DeviceChoice> names = {
      {DeviceChoice::Auto, "auto"}, {DeviceChoice::Cpu, "cpu"}, {DeviceChoice::Cuda, "cuda"}};
  return names;
}

torch::Device resolve_device(DeviceChoice choice) {
  switch (choice) {
    case DeviceChoice::Cpu: return torch::kCPU;
    case DeviceChoice::Cuda:
      if (!torch::cuda::is_available())
        throw Error("--device cuda: no CUDA device is available to this LibTorch " + torch_version() +
                    " build (use --device cpu or auto)");
      return torch::Device(torch::kCUDA, 0);
    case DeviceChoice::Auto: break;
  }
  return torch::cuda::is_available() ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
}

namespace {

nlohmann::json env_or_null(const char* name) {
  const char* value = std::getenv(name);
  return value ? nlohmann::json(value) : nlohmann::json();
}

// "<array job>_<task>" (restart N) or "<job>" of the SLURM job this process runs in; null outside SLURM.
nlohmann::json slurm_job() {
  const char *job = std::getenv("SLURM_JOB_ID"), *array = std::getenv("SLURM_ARRAY_JOB_ID"),
             *task = std::getenv("SLURM_ARRAY_TASK_ID"), *restarts = std::getenv("SLURM_RESTART_COUNT");
  if (!job) return nullptr;
  std::string id = array && task ? std::string(array) + "_" + task : std::string(job);
  if (restarts) id += " (restart " + std::string(restarts) + ")";
  return id;
}

struct GpuFacts {
  std::string name;    // "" when the driver does not answer
  uint64_t bytes = 0;  // 0 when it does not say
};

// The GPU's name and memory as the CUDA driver reports them, asked through libcuda (already loaded by a CUDA
// LibTorch; no CUDA headers at build time).
GpuFacts gpu_facts(torch::Device device) {
  GpuFacts facts;
  void* driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver) return facts;
  using Init = int (*)(unsigned);
  using Get = int (*)(int*, int);
  using Name = int (*)(char*, int, int);
  using Memory = int (*)(size_t*, int);
  const auto init = reinterpret_cast<Init>(::dlsym(driver, "cuInit"));
  const auto get = reinterpret_cast<Get>(::dlsym(driver, "cuDeviceGet"));
  const auto name = reinterpret_cast<Name>(::dlsym(driver, "cuDeviceGetName"));
  const auto memory = reinterpret_cast<Memory>(::dlsym(driver, "cuDeviceTotalMem_v2"));
  int handle = 0;
  char text[256] = {0};
  if (init && get && name && init(0) == 0 && get(&handle, device.has_index() ? device.index() : 0) == 0 &&
      name(text, static_cast<int>(sizeof text - 1), handle) == 0) {
    facts.name = text;
    size_t bytes = 0;
    if (memory && memory(&bytes, handle) == 0) facts.bytes = bytes;
  }
  ::dlclose(driver);
  return facts;
}

// "NVIDIA H100 80GB HBM3, 81559 MiB"; null on the CPU or when the driver does not answer.
nlohmann::json gpu_description(torch::Device device) {
  if (!device.is_cuda()) return nullptr;
  const GpuFacts facts = gpu_facts(device);
  if (facts.name.empty()) return nullptr;
  return facts.bytes ? facts.name + ", " + std::to_string(facts.bytes >> 20) + " MiB" : facts.name;
}

#ifdef REPRO_CUDA
// The NVIDIA driver's version from /proc/driver/nvidia/version; nullopt where the file is absent.
std::optional<std::string> nvidia_driver_version() {
  std::string text;
  try {
    text = read_regular_file("/proc/driver/nvidia/version", kMiB, "the NVIDIA driver's version file");
  } catch (const Error&) {
    return std::nullopt;  // absent (the CPU, a container without it)
  }
  return parse_nvidia_driver_version(text.substr(0, std::min<size_t>(text.find('\n'), 1024)));
}
#endif

}  // namespace

MemoryBudget training_memory(DeviceChoice choice) {
  const bool cuda = choice == DeviceChoice::Cuda || (choice == DeviceChoice::Auto && torch::cuda::is_available());
  if (cuda) {
    const GpuFacts facts = gpu_facts(torch::Device(torch::kCUDA, 0));
    if (facts.bytes > 0) return {facts.bytes, "the GPU (" + facts.name + ")"};
  }
  return {physical_memory_bytes(), "this machine"};
}

std::optional<std::string> parse_nvidia_driver_version(const std::string& line) {
  static const std::regex version(R"(Module.*?\s([0-9]+\.[0-9]+(?:\.[0-9]+)?)(?:\s|$))");
  std::smatch match;
  if (!std::regex_search(line, match, version)) return std::nullopt;
  return match[1].str();
}

DeviceIdentity device_identity(torch::Device device) {
  DeviceIdentity identity;
#ifdef REPRO_CUDA
  if (!device.is_cuda()) return identity;
  const auto* properties = at::cuda::getDeviceProperties(device.has_index() ? device.index() : 0);
  identity.gpu_name = std::string(properties->name);
  identity.compute_capability = std::to_string(properties->major) + "." + std::to_string(properties->minor);
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess && runtime > 0)
    identity.cuda_runtime = std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10);
  identity.driver_version = nvidia_driver_version();
  if (!identity.driver_version) {  // no /proc entry (a container without it): the driver's CUDA version instead
    int driver = 0;
    if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0)
      identity.driver_version =
          "CUDA " + std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10) + " driver";
  }
#else
  (void)device;
#endif
  return identity;
}

nlohmann::json environment_record(torch::Device device, int lanes) {
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  const CpuKernels kernels = cpu_kernels_in_force();
  nlohmann::json environment = {{"device", device.str()},
          {"gpu", gpu_description(device)},  // the CUDA device's name and memory; null on the CPU
          {"threads", torch::get_num_threads()},
          {"lanes", lanes},  // runs trained at once in this process (--lanes): they share the device
          {"kernel_threads", kernel_threads()},  // threads repro's own CPU kernels reach (1: built without OpenMP)
          {"blas", blas_in_use()},
          {"blas_threads", blas_threads()},
          {"blas_core", blas_core()},  // OpenBLAS's kernels for this CPU: runs repeat bit for bit on one kernel set
          // ATen's CPU capability and oneDNN's instruction set order sums too (util/cpu_kernels.h; record/run_record.h:
          // SumOrder), and who chose each of the three: the library for this CPU, the user's variable, or repro.
          {"aten_capability", kernels.aten.name},
          {"onednn_isa", kernels.onednn.name.empty() ? nlohmann::json(nullptr) : nlohmann::json(kernels.onednn.name)},
          {"kernels_chosen_by",
           {{"blas", name_of(kernels.blas.chooser)},
            {"aten", name_of(kernels.aten.chooser)},
            {"onednn", name_of(kernels.onednn.chooser)}}},
          {"cpu", cpu_model()},
          {"libtorch", torch_version()},
          {"cuda_available", cuda_available()},
          {"repro_version", repro_version()},
          {"git_commit", git_commit()},
          {"host", host},
          {"cuda_visible_devices", env_or_null("CUDA_VISIBLE_DEVICES")},  // as SLURM (gres) or --jobs assigned them
          {"slurm_job", slurm_job()},
          {"omp_wait_policy", env_or_null("OMP_WAIT_POLICY")},  // passive unless the user set it (src/main.cpp)
          {"malloc", malloc_policy()}};                        // src/util/memory.h
  environment.update(device_identity_json(device_identity(device)));  // the run's precision and graphs: null here
  return environment;
}

}  // namespace repro
