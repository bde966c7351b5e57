#include "util/cpu_kernels.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "util/error.h"
#include "util/strings.h"
#include "util/version.h"

namespace repro {

namespace {

struct Pin {
  const char* variable;
  const char* value;  // the portable kernels: what every x86-64 CPU with AVX2 and FMA runs
};
// OpenBLAS's Haswell set is also the one it runs itself on AMD's Zen CPUs.
constexpr Pin kBlasPin{"OPENBLAS_CORETYPE", "Haswell"};
constexpr Pin kAtenPin{"ATEN_CPU_CAPABILITY", "avx2"};
// oneDNN's variables (ONEDNN_ since 2.5, DNNL_ before; both are read): one the user set keeps oneDNN on.
constexpr const char* kOnednnVariable = "ONEDNN_MAX_CPU_ISA";
constexpr const char* kOnednnOldVariable = "DNNL_MAX_CPU_ISA";

bool is_set(const char* variable) {
  const char* value = std::getenv(variable);
  return value != nullptr && *value != '\0';
}

std::string value_of(const char* variable) {
  const char* value = std::getenv(variable);
  return value ? value : "";
}

bool has(const std::vector<std::string>& flags, const char* flag) {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

bool has_portable_kernels() {
  const auto flags = cpu_flags();
  return has(flags, "avx2") && has(flags, "fma");
}

std::vector<std::string> pinned_by_repro() { return split(value_of(kPinnedVariables), ','); }

bool pinned(const char* variable) {
  const auto list = pinned_by_repro();
  return std::find(list.begin(), list.end(), variable) != list.end();
}

KernelChooser chooser_of(const char* variable, const char* other_variable = nullptr) {
  if (pinned(variable)) return KernelChooser::Repro;
  if (is_set(variable) || (other_variable && is_set(other_variable))) return KernelChooser::User;
  return KernelChooser::Cpu;
}

// oneDNN's effective instruction set by its C API ("avx2", "avx512_core_bf16"); "" when oneDNN is not a library this
// process loaded with its symbols visible (PyTorch's own LibTorch links it in, hidden).
std::string onednn_isa() {
  using GetIsa = int (*)();
  using IsaName = const char* (*)(int);
  const auto get = reinterpret_cast<GetIsa>(::dlsym(RTLD_DEFAULT, "dnnl_get_effective_cpu_isa"));
  const auto name = reinterpret_cast<IsaName>(::dlsym(RTLD_DEFAULT, "dnnl_cpu_isa2str"));
  if (!get || !name) return "";
  const char* text = name(get());
  std::string isa = text ? text : "";
  return starts_with(isa, "cpu_isa_") ? isa.substr(8) : isa;
}

// "ATEN_CPU_CAPABILITY=avx2, set by repro" / "ATEN_CPU_CAPABILITY=avx512" / "this CPU's"
std::string why(const KernelChoice& choice, const std::string& variable) {
  switch (choice.chooser) {
    case KernelChooser::Repro: return variable + "=" + value_of(variable.c_str()) + ", set by repro";
    case KernelChooser::User: return variable + "=" + value_of(variable.c_str());
    case KernelChooser::Cpu: break;
  }
  return "chosen for this CPU";
}

}  // namespace

const char* name_of(KernelChooser chooser) {
  switch (chooser) {
    case KernelChooser::Cpu: return "cpu";
    case KernelChooser::User: return "user";
    case KernelChooser::Repro: return "repro";
  }
  return "cpu";
}

CpuKernelsMode cpu_kernels_mode() {
  const std::string mode = value_of(kCpuKernelsVariable);
  if (mode.empty() || mode == "portable") return CpuKernelsMode::Portable;
  if (mode == "native") return CpuKernelsMode::Native;
  throw Error(std::string("environment variable ") + kCpuKernelsVariable + "='" + mode +
              "': expected portable (the default: the same kernels on every x86-64 CPU with AVX2 and FMA) or native");
}

bool pin_cpu_kernels() {
  if (cpu_kernels_mode() == CpuKernelsMode::Native) return prefer_faster_blas();
  if (!has_portable_kernels()) return false;  // no portable set here: the libraries choose
  bool restart = false;
  std::vector<std::string> set;  // what repro set: here, or in the repro (or test binary) that started this one
  for (const Pin& pin : {kBlasPin, kAtenPin}) {
    if (pinned(pin.variable) && value_of(pin.variable) == pin.value) set.emplace_back(pin.variable);
    if (is_set(pin.variable)) continue;  // the user's choice is kept
    const std::string variable = pin.variable;
    if (variable == kBlasPin.variable && blas_core().empty()) continue;  // not OpenBLAS
    if (::setenv(pin.variable, pin.value, 1) == 0) set.emplace_back(pin.variable), restart = true;
  }
  if (set.empty()) ::unsetenv(kPinnedVariables);
  else ::setenv(kPinnedVariables, join(set, ",").c_str(), 1);
  return restart;
}

void unpin_cpu_kernels() {
  for (const auto& variable : pinned_by_repro()) ::unsetenv(variable.c_str());
  ::unsetenv(kPinnedVariables);
  if (is_set(kGenericBlasCoreVariable)) ::unsetenv("OPENBLAS_CORETYPE"), ::unsetenv(kGenericBlasCoreVariable);
}

bool onednn_off_by_repro() {
  try {
    if (cpu_kernels_mode() != CpuKernelsMode::Portable) return false;
  } catch (const Error&) {
    return false;  // refused where the process starts (cli/entry.cpp)
  }
  return has_portable_kernels() && !is_set(kOnednnVariable) && !is_set(kOnednnOldVariable);
}

CpuKernels cpu_kernels_in_force() {
  CpuKernels kernels;
  kernels.blas = {blas_core(), is_set(kGenericBlasCoreVariable) ? KernelChooser::Repro : chooser_of(kBlasPin.variable)};
  kernels.aten = {aten_cpu_capability(), chooser_of(kAtenPin.variable)};
  if (!onednn_enabled_in_libtorch())
    kernels.onednn = {"off", onednn_off_by_repro() ? KernelChooser::Repro : KernelChooser::User};
  else
    kernels.onednn = {onednn_isa(), chooser_of(kOnednnVariable, kOnednnOldVariable)};
  return kernels;
}

std::string aten_onednn_text(const CpuKernels& kernels) {
  std::string text = "ATen " + (kernels.aten.name.empty() ? std::string("?") : kernels.aten.name) + " (" +
                     why(kernels.aten, kAtenPin.variable) + ")";
  const std::string onednn_variable =
      is_set(kOnednnOldVariable) && !is_set(kOnednnVariable) ? kOnednnOldVariable : kOnednnVariable;
  if (kernels.onednn.name == "off")
    text += ", oneDNN off (" +
            std::string(kernels.onednn.chooser == KernelChooser::Repro ? "set by repro: " : "") +
            "ATen's and OpenBLAS's kernels instead)";
  else if (!kernels.onednn.name.empty())
    text += ", oneDNN " + kernels.onednn.name + " (" + why(kernels.onednn, onednn_variable) + ")";
  else
    text += ", oneDNN not visible to repro" +
            (is_set(onednn_variable.c_str()) ? " (" + onednn_variable + "=" + value_of(onednn_variable.c_str()) + ")"
                                             : std::string());
  return text;
}

}  // namespace repro
