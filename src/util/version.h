#pragma once
// What this binary is and what it runs on: recorded with every run.
#include <string>
#include <vector>

namespace repro {

const char* git_commit();     // generated at build time (cmake/git_commit.cmake)
std::string repro_version();  // e.g. "0.1.0"; generated from CMakeLists.txt's project() version
std::string torch_version();  // e.g. "1.13.0"
bool cuda_available();
// The BLAS library LibTorch's matrix products resolve to, e.g.
// "OpenBLAS (pthread) /usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3".
std::string blas_in_use();
// Sets LibTorch's intra-op threads to `threads` (0 = every CPU of this process's affinity
// mask; `repro run` passes its thread plan, run/threads.h) and, unless
// $OPENBLAS_NUM_THREADS says otherwise, OpenBLAS to one thread: the models' matrix
// products are split over LibTorch's own threads (models/cpu_ops.h), and OpenBLAS's
// threads, which spin after each call, took cores from LibTorch's (nested, they made a
// ViT training step 3x slower on 2 cores: 13.7 s vs 4.4 s per 10k images).
void configure_threads(int threads);
int blas_threads();  // OpenBLAS's thread count, or -1 when not OpenBLAS
// The kernel set OpenBLAS chose for this CPU (openblas_get_corename, e.g. "Haswell",
// "SkylakeX", "Zen"), or "" when the BLAS is not OpenBLAS. Float sums in other kernels
// run in another order: CPU runs repeat bit for bit on one machine, not across kernels.
std::string blas_core();
// ATen's CPU capability in force, as LibTorch's own configuration report says it: "AVX2", "AVX512", "DEFAULT"
// (its scalar kernels; LibTorch 1.13 says "NO AVX"); "" when the report does not say. util/cpu_kernels.h says why.
std::string aten_cpu_capability();
// Whether LibTorch may use oneDNN (MKL-DNN) for its CPU kernels (at::Context's user flag), and setting it.
bool onednn_enabled_in_libtorch();
void set_onednn_in_libtorch(bool enabled);
// The CPU as /proc/cpuinfo names it: "AMD EPYC (family 26, model 2, stepping 1)"; "" elsewhere.
std::string cpu_model();
// Its feature flags as /proc/cpuinfo lists them ("avx2", "fma", "avx512f", …); empty elsewhere.
std::vector<std::string> cpu_flags();

// OpenBLAS's kernel sets without AVX2 and FMA: what it falls back to on a CPU model it does not know (Debian 12's
// OpenBLAS 0.3.21 runs "Prescott", its generic SSE3 kernels, on Intel's family 6 model 207).
bool is_generic_blas_core(const std::string& core);
// The kernel set to ask OpenBLAS for (OPENBLAS_CORETYPE) instead of `core` on a CPU with these flags: "Haswell"
// (AVX2 and FMA: the set OpenBLAS itself runs on AMD's Zen CPUs, and the committed CPU records' quick start) when
// `core` is generic and the CPU has AVX2 and FMA; "" otherwise.
std::string faster_blas_core(const std::string& core, const std::vector<std::string>& flags);
// The environment variable that tells a restarted repro which generic kernels OpenBLAS had chosen alone
// (prefer_faster_blas sets it with OPENBLAS_CORETYPE).
inline constexpr const char* kGenericBlasCoreVariable = "REPRO_BLAS_GENERIC_CORE";
// Where OpenBLAS runs generic kernels on a CPU that has faster ones and the user set no OPENBLAS_CORETYPE: sets it
// (and kGenericBlasCoreVariable) for a restart of the process, which OpenBLAS reads when it loads, and returns true
// (cli/entry.cpp restarts repro, tests/fixtures.cpp the test binaries); false otherwise.
bool prefer_faster_blas();
// The kernels OpenBLAS runs and who chose them, for `repro --version` and each run's log: "Cooperlake kernels",
// "Haswell kernels (OPENBLAS_CORETYPE=Haswell, set by repro: OpenBLAS alone chose its generic Prescott kernels on
// this CPU with AVX2)", or, where a command runs the generic ones, what to set and what it costs; "" when the BLAS
// is not OpenBLAS.
std::string blas_kernels_text();
void set_blas_threads(int threads);  // no-op when not OpenBLAS

// A multi-line report for `repro --version`.
std::string version_report();

}  // namespace repro
