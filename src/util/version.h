#pragma once
// What this binary is and what it runs on: recorded with every run.
#include <string>

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
int blas_threads();                  // OpenBLAS's thread count, or -1 when not OpenBLAS
// The kernel set OpenBLAS chose for this CPU (openblas_get_corename, e.g. "Haswell",
// "SkylakeX", "Zen"), or "" when the BLAS is not OpenBLAS. Float sums in other kernels
// run in another order: CPU runs repeat bit for bit on one machine, not across kernels.
std::string blas_core();
// The CPU as /proc/cpuinfo names it: "AMD EPYC (family 26, model 2, stepping 1)"; "" elsewhere.
std::string cpu_model();
void set_blas_threads(int threads);  // no-op when not OpenBLAS

// A multi-line report for `repro --version`.
std::string version_report();

}  // namespace repro
