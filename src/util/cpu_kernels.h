#pragma once
// What orders a CPU run's float sums, beside LibTorch's version and the thread count (issue 63): three libraries
// each pick kernels for the CPU they find, and each pick sums in its own order.
//   OpenBLAS   its kernel set (the matrix products)      OPENBLAS_CORETYPE    read when the library loads
//   ATen       its CPU capability (vectorised kernels)   ATEN_CPU_CAPABILITY  read at LibTorch's first dispatch
//   oneDNN     its instruction set (convolutions)        ONEDNN_MAX_CPU_ISA   read at its first primitive
// By default repro asks all three for the kernels every x86-64 CPU with AVX2 and FMA runs (Haswell, avx2, AVX2: the
// "portable" kernels), so that a run repeats bit for bit on every such CPU and one resumed on another machine goes
// on in the same order; REPRO_CPU_KERNELS=native leaves the libraries their own choice (OpenBLAS's generic kernels
// still replaced, util/version.h: prefer_faster_blas). A variable the user set is kept. Measured: docs/performance.md,
// "Digits that repeat on every x86-64 CPU".
#include <string>

namespace repro {

enum class CpuKernelsMode { Portable, Native };
// Who chose a library's kernels: the library from the CPU, the user's variable, or repro.
enum class KernelChooser { Cpu, User, Repro };
const char* name_of(KernelChooser chooser);  // "cpu" | "user" | "repro"

inline constexpr const char* kCpuKernelsVariable = "REPRO_CPU_KERNELS";  // portable (default) | native
// The variables repro set for its restart, comma-separated, so that the restarted process says who chose.
inline constexpr const char* kPinnedVariables = "REPRO_PINNED_KERNELS";

// $REPRO_CPU_KERNELS; throws repro::Error naming the variable and the value for anything but portable and native.
CpuKernelsMode cpu_kernels_mode();

// Sets, for a restart of the process, the variables of the chosen mode that the user did not set: portable, on a CPU
// with AVX2 and FMA, all three (and kPinnedVariables); native, OPENBLAS_CORETYPE where OpenBLAS would run generic
// kernels. True when something was set (cli/entry.cpp restarts repro, tests/fixtures.cpp the test binaries).
bool pin_cpu_kernels();
// Undoes pin_cpu_kernels() when the restart failed: the process goes on with what the libraries chose.
void unpin_cpu_kernels();

struct KernelChoice {
  std::string name;  // "Haswell", "AVX2", "avx2"; "" when the library is not there or cannot say
  KernelChooser chooser = KernelChooser::Cpu;
};
struct CpuKernels {
  KernelChoice blas;    // OpenBLAS's kernel set (openblas_get_corename)
  KernelChoice aten;    // ATen's CPU capability in force: "AVX2", "AVX512", "DEFAULT" (no vector kernels)
  KernelChoice onednn;  // oneDNN's effective instruction set: "avx2", "avx512_core_bf16"; "" when not found
};
// The kernels in force in this process, and who chose each.
CpuKernels cpu_kernels_in_force();
// "ATen AVX2 (ATEN_CPU_CAPABILITY=avx2, set by repro), oneDNN avx2 (ONEDNN_MAX_CPU_ISA=AVX2, set by repro)": for
// `repro --version` and each run's log, beside the BLAS line.
std::string aten_onednn_text(const CpuKernels& kernels);

}  // namespace repro
