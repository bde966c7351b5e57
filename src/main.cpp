// repro: a thin main; everything lives in the library (see src/cli/cli.cpp).
#include <unistd.h>

#include <cstdlib>

#include "cli/cli.h"

namespace {

// LibTorch's OpenMP threads spin while they wait for work unless OMP_WAIT_POLICY=passive. On a machine
// where another process wants a core, a 2-thread training step went from 57 to 1,500-1,680 ms spinning and
// to 107-181 ms passive (docs/performance.md, "Parallel runs"). libgomp reads the variable when it is
// loaded, before main, so it is set here and the binary starts again, once; a value the user set is kept.
void prefer_passive_openmp(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr) return;
  if (::setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
  ::execv("/proc/self/exe", argv);  // returns only on failure: go on with the default policy
}

}  // namespace

int main(int argc, char** argv) {
  prefer_passive_openmp(argv);
  return repro::cli_main(argc, argv);
}
