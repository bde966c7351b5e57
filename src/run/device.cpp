#include "run/device.h"

#include <unistd.h>

#include "util/error.h"
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

nlohmann::json environment_record(torch::Device device) {
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  return {
      {"device", device.str()},           {"threads", torch::get_num_threads()}, {"blas", blas_in_use()},
      {"blas_threads", blas_threads()},   {"libtorch", torch_version()},         {"cuda_available", cuda_available()},
      {"repro_version", repro_version()}, {"git_commit", git_commit()},          {"host", host}};
}

}  // namespace repro
