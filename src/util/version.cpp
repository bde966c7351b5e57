#include "util/version.h"

#include "util/cpu_kernels.h"

#include <dlfcn.h>
#include <link.h>
#include <sched.h>
#include <ATen/Version.h>
#include <torch/torch.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace repro {

std::string torch_version() { return TORCH_VERSION; }

bool cuda_available() { return torch::cuda::is_available(); }

namespace {

int collect_library(struct dl_phdr_info* info, size_t, void* data) {
  auto* names = static_cast<std::vector<std::string>*>(data);
  if (info->dlpi_name && *info->dlpi_name) names->push_back(info->dlpi_name);
  return 0;
}

std::string resolved(const std::string& path) {
  char buffer[PATH_MAX];
  return ::realpath(path.c_str(), buffer) ? std::string(buffer) : path;
}

}  // namespace

std::string blas_in_use() {
  std::vector<std::string> libraries;
  dl_iterate_phdr(collect_library, &libraries);
  // LibTorch calls sgemm_ through libblas.so.3; on Debian that is an
  // alternatives link to the reference BLAS or to OpenBLAS.
  for (const auto& library : libraries) {
    if (library.find("libblas.so") == std::string::npos) continue;
    const std::string target = resolved(library);
    if (target.find("openblas") != std::string::npos) {
      const bool pthread = target.find("pthread") != std::string::npos;
      return std::string("OpenBLAS") + (pthread ? " (pthread) " : " ") + target;
    }
    if (target.find("blis") != std::string::npos) return "BLIS " + target;
    if (target.find("atlas") != std::string::npos) return "ATLAS " + target;
    return "reference BLAS " + target + " (slow: install libopenblas0-pthread, see scripts/setup)";
  }
  for (const auto& library : libraries) {
    if (library.find("mkl") != std::string::npos) return "MKL " + resolved(library);
    if (library.find("openblas") != std::string::npos) return "OpenBLAS " + resolved(library);
  }
  return "none found among loaded libraries";
}

void configure_threads(int threads) {
  cpu_set_t allowed;  // the CPUs this process may run on (taskset, cgroup cpusets), not every core of the machine
  CPU_ZERO(&allowed);
  const int cores = ::sched_getaffinity(0, sizeof allowed, &allowed) == 0
                        ? std::max(1, CPU_COUNT(&allowed))
                        : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  torch::set_num_threads(threads > 0 ? threads : cores);
  const char* user = std::getenv("OPENBLAS_NUM_THREADS");
  if (user && *user) return;
  set_blas_threads(1);
}

void set_blas_threads(int threads) {
  using SetThreads = void (*)(int);
  if (auto set = reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) set(threads);
}

std::string blas_core() {
  using CoreName = char* (*)();
  auto get = reinterpret_cast<CoreName>(::dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  const char* name = get ? get() : nullptr;
  return name ? name : "";
}

namespace {

// The first processor's fields of /proc/cpuinfo ("model name" -> "AMD EPYC", "flags" -> "fpu vme …").
std::map<std::string, std::string> cpuinfo_fields() {
  std::ifstream in("/proc/cpuinfo");
  std::map<std::string, std::string> fields;
  for (std::string line; std::getline(in, line) && !line.empty();) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    auto key = line.substr(0, colon);
    key.erase(key.find_last_not_of(" \t") + 1);
    const auto start = line.find_first_not_of(' ', colon + 1);
    fields.emplace(key, start == std::string::npos ? "" : line.substr(start));
  }
  return fields;
}

bool has_flag(const std::vector<std::string>& flags, const char* flag) {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

}  // namespace

std::vector<std::string> cpu_flags() {
  std::istringstream words(cpuinfo_fields()["flags"]);
  std::vector<std::string> flags;
  for (std::string word; words >> word;) flags.push_back(word);
  return flags;
}

bool is_generic_blas_core(const std::string& core) {
  static const char* const generic[] = {
      "Prescott",    "Core2",     "Penryn",     "Dunnington",  "Nehalem",      "Atom",      "Katmai",
      "Coppermine",  "Northwood", "Banias",     "Opteron",     "Opteron_SSE3", "Barcelona", "Bobcat",
      "Sandybridge", "Bulldozer", "Piledriver", "Steamroller", "Excavator",    "Generic",   "Nano"};
  for (const char* name : generic)
    if (core == name) return true;
  return false;
}

std::string faster_blas_core(const std::string& core, const std::vector<std::string>& flags) {
  return is_generic_blas_core(core) && has_flag(flags, "avx2") && has_flag(flags, "fma") ? "Haswell" : "";
}

bool prefer_faster_blas() {
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return false;
  const std::string core = blas_core();
  const std::string faster = faster_blas_core(core, cpu_flags());
  return !faster.empty() && ::setenv(kGenericBlasCoreVariable, core.c_str(), 1) == 0 &&
         ::setenv("OPENBLAS_CORETYPE", faster.c_str(), 1) == 0;
}

std::string blas_kernels_text() {
  const std::string core = blas_core();
  if (core.empty()) return "";
  const char* set = std::getenv("OPENBLAS_CORETYPE");
  const char* generic = std::getenv(kGenericBlasCoreVariable);
  if (set && *set && generic && *generic)
    return core + " kernels (OPENBLAS_CORETYPE=" + set + ", set by repro: OpenBLAS alone chose its generic " + generic +
           " kernels on this CPU with AVX2)";
  if (set && *set && cpu_kernels_in_force().blas.chooser == KernelChooser::Repro)
    return core + " kernels (OPENBLAS_CORETYPE=" + set + ", set by repro: the portable kernels, " + kCpuKernelsVariable +
           "=native for this CPU's own)";
  if (set && *set) return core + " kernels (OPENBLAS_CORETYPE=" + set + ")";
  const std::string faster = faster_blas_core(core, cpu_flags());
  if (!faster.empty())
    return core +
           " kernels, OpenBLAS's generic ones: this CPU has AVX2; repro run, sweep, bench and eval set "
           "OPENBLAS_CORETYPE=" +
           faster + " (about 1.7x faster a step, docs/performance.md)";
  return core + " kernels";
}

std::string aten_cpu_capability() {
  const std::string config = at::show_config();
  const std::string key = "CPU capability usage: ";
  const auto at = config.find(key);
  if (at == std::string::npos) return "";
  const auto start = at + key.size();
  const std::string capability = config.substr(start, config.find('\n', start) - start);
  return capability == "NO AVX" ? "DEFAULT" : capability;
}

bool onednn_enabled_in_libtorch() { return at::globalContext().userEnabledMkldnn(); }

void set_onednn_in_libtorch(bool enabled) { at::globalContext().setUserEnabledMkldnn(enabled); }

void apply_cpu_kernels() {
  if (onednn_off_by_repro()) set_onednn_in_libtorch(false);
}

std::string cpu_model() {
  auto fields = cpuinfo_fields();
  if (!fields.count("model name")) return "";
  std::string model = fields["model name"];
  if (fields.count("cpu family") && fields.count("model"))
    model += " (family " + fields["cpu family"] + ", model " + fields["model"] +
             (fields.count("stepping") ? ", stepping " + fields["stepping"] : "") + ")";
  return model;
}

int blas_threads() {
  using GetThreads = int (*)();
  auto get = reinterpret_cast<GetThreads>(::dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  return get ? get() : -1;
}

std::string version_report() {
  std::string report = "repro " + repro_version() + "\n";
  report += "git commit: " + std::string(git_commit()) + "\n";
  report += "LibTorch: " + torch_version() + "\n";
  report += "CUDA available: " + std::string(cuda_available() ? "yes" : "no") + "\n";
  report += "BLAS: " + blas_in_use() + (blas_core().empty() ? "" : " (" + blas_kernels_text() + ")") + "\n";
  report += "CPU kernels: " + aten_onednn_text(cpu_kernels_in_force()) + "\n";
  if (!cpu_model().empty()) report += "CPU: " + cpu_model() + "\n";
  report +=
      "threads: LibTorch " + std::to_string(torch::get_num_threads()) + ", OpenBLAS " + std::to_string(blas_threads());
  return report;
}

}  // namespace repro
