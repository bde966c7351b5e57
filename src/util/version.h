#pragma once
// What this binary is and what it runs on: recorded with every run.
#include <string>

namespace repro {

const char* git_commit();          // generated at build time (cmake/git_commit.cmake)
std::string repro_version();       // e.g. "0.1.0"
std::string torch_version();       // e.g. "1.13.0"
bool cuda_available();
// The BLAS library LibTorch's matrix products resolve to, e.g.
// "OpenBLAS (pthread) /usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3".
std::string blas_in_use();
// A multi-line report for `repro --version`.
std::string version_report();

}  // namespace repro
