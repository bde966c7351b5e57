#include "run/device.h"

#include <unistd.h>

#include <cstdlib>

#include "models/cpu_ops.h"
#include "util/error.h"
#include "util/memory.h"
#include "util/version.h"

namespace repro {

torch::Device resolve_device(const std::string& choice) {
  if (choice == "cpu") return torch::kCPU;
  if (choice == "cuda") {
    if (!torch::cuda::is_available())
      throw Error("--device cuda: no CUDA device is available to this LibTorch " + torch_version() +
                  " build (use --device cpu or auto)");
    return torch::Device(torch::kCUDA, 0);
  }
  if (choice == "auto")
    return torch::cuda::is_available() ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
  throw Error("--device: got '" + choice + "', expected auto, cpu or cuda");
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

}  // namespace

nlohmann::json environment_record(torch::Device device) {
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  return {{"device", device.str()},
          {"threads", torch::get_num_threads()},
          {"kernel_threads", kernel_threads()},  // threads repro's own CPU kernels reach (1: built without OpenMP)
          {"blas", blas_in_use()},
          {"blas_threads", blas_threads()},
          {"blas_core", blas_core()},  // OpenBLAS's kernels for this CPU: runs repeat bit for bit on one kernel set
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
}

}  // namespace repro
