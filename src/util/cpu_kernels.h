#pragma once
// What orders a CPU run's float sums, beside LibTorch's version and the thread count (issue 63): three libraries
// each pick kernels for the CPU they find, and each pick sums in its own order.
//   OpenBLAS   its kernel set (the matrix products)            OPENBLAS_CORETYPE    read when the library loads
//   ATen       its CPU capability (vectorised kernels)         ATEN_CPU_CAPABILITY  read at LibTorch's first dispatch
//   oneDNN     its instruction set (convolutions, bf16 products) ONEDNN_MAX_CPU_ISA  read at its first primitive
// By default (the "portable" kernels) repro asks OpenBLAS for its Haswell set and ATen for its AVX2 kernels, which
// every x86-64 CPU with AVX2 and FMA runs, and turns LibTorch's use of oneDNN off (its convolutions and bf16
// products then run on ATen's kernels and OpenBLAS): oneDNN capped at AVX2 would sum portably too, but then refuses
// bf16 products on an AVX-512 CPU, where LibTorch asks it for them. So a run repeats bit for bit on every such CPU
// and one resumed on another machine goes on in the same order. REPRO_CPU_KERNELS=native leaves the libraries their
// own choice (OpenBLAS's generic kernels still replaced, util/version.h: prefer_faster_blas). A variable the user
// set is kept (ONEDNN_MAX_CPU_ISA keeps oneDNN on). Measured: docs/performance.md, "Digits that repeat on every
// x86-64 CPU".
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
// with AVX2 and FMA, OpenBLAS's and ATen's (and kPinnedVariables); native, OPENBLAS_CORETYPE where OpenBLAS would
// run generic kernels. True when something was set (cli/entry.cpp restarts repro, tests/fixtures.cpp the test
// binaries).
bool pin_cpu_kernels();
// Undoes pin_cpu_kernels() when the restart failed: the process goes on with what the libraries chose.
void unpin_cpu_kernels();

// In the process itself, portable mode: LibTorch's use of oneDNN off (util/version.cpp: it needs LibTorch), unless
// the user set ONEDNN_MAX_CPU_ISA or DNNL_MAX_CPU_ISA or the CPU has no AVX2 and FMA. Called by repro_main and the
// test binaries before anything runs.
void apply_cpu_kernels();
// Whether apply_cpu_kernels() turns oneDNN off in this process.
bool onednn_off_by_repro();

struct KernelChoice {
  std::string name;  // "Haswell", "AVX2", "avx2", "off"; "" when the library is not there or cannot say
  KernelChooser chooser = KernelChooser::Cpu;
};
struct CpuKernels {
  KernelChoice blas;    // OpenBLAS's kernel set (openblas_get_corename)
  KernelChoice aten;    // ATen's CPU capability in force: "AVX2", "AVX512", "DEFAULT" (no vector kernels)
  KernelChoice onednn;  // oneDNN's effective instruction set, "avx2", "avx512_core_bf16"; "off" where LibTorch does
                        // not use it (portable mode); "" when not found
};
// The kernels in force in this process, and who chose each.
CpuKernels cpu_kernels_in_force();
// "ATen AVX2 (ATEN_CPU_CAPABILITY=avx2, set by repro), oneDNN off (set by repro: ATen's kernels instead)": for
// `repro --version` and each run's log, beside the BLAS line.
std::string aten_onednn_text(const CpuKernels& kernels);

}  // namespace repro
