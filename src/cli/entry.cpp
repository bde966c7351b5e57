// The program around the command line: the process set-up of repro and repro-faults (cli/cli.h: repro_main).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cli/cli.h"
#include "models/attention/registry.h"
#include "util/cpu_kernels.h"
#include "util/error.h"
#include "util/memory.h"
#include "util/version.h"

namespace {

// LibTorch's OpenMP threads spin while they wait for work unless OMP_WAIT_POLICY=passive. On a machine
// where another process wants a core, a 2-thread training step went from 57 to 1,500-1,680 ms spinning and
// to 107-181 ms passive; on a quiet machine passive costs that small model ~38% (46.8 -> 64.6 ms) and a large
// one nothing (docs/performance.md, "Parallel runs"). libgomp reads the variable when it is
// loaded, before main, so it is set here and the binary starts again, once (about 0.35 CPU-seconds of loading
// LibTorch again): only for the subcommands that train or evaluate. A value the user set is kept.
bool trains(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    for (const char* command : {"run", "sweep", "bench", "eval"})
      if (std::strcmp(argv[i], command) == 0) return true;
  return false;
}

// The commands whose numbers depend on the kernels: `--version` too, so that it names the kernels a run gets.
bool prepares_kernels(int argc, char** argv) {
  if (trains(argc, argv)) return true;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--version") == 0) return true;
  return false;
}

// What the libraries read when they load, set for the subcommands that train or evaluate; then the binary starts
// again, once, with it. The CPU kernels too (util/cpu_kernels.h): by default the portable ones, the same on every
// x86-64 CPU with AVX2 and FMA, so that the float sums run in one order there; OpenBLAS reads its variable only
// when it is loaded. With REPRO_CPU_KERNELS=native, OpenBLAS's own choice, except its generic kernels on a CPU
// with AVX2 (Debian 12's 0.3.21 on Intel's family 6 model 207: "Prescott", about 1.7x slower a step): there
// OPENBLAS_CORETYPE=Haswell (util/version.h: prefer_faster_blas). Each run's log says who chose the kernels. A value
// the user set is kept: OPENBLAS_CORETYPE=Prescott repeats records made with the generic kernels.
void prepare_environment(int argc, char** argv) {
  if (!prepares_kernels(argc, argv)) return;
  bool restart = trains(argc, argv) && std::getenv("OMP_WAIT_POLICY") == nullptr &&
                 ::setenv("OMP_WAIT_POLICY", "passive", 1) == 0;
  bool kernels = false;
  try {
    kernels = repro::pin_cpu_kernels();
  } catch (const repro::Error& e) {
    std::fprintf(stderr, "repro: error: %s\n", e.what());
    std::exit(2);
  }
  if (!restart && !kernels) return;
  ::execv("/proc/self/exe", argv);  // returns only on failure: go on as the libraries started
  if (kernels) repro::unpin_cpu_kernels();
}

}  // namespace

namespace repro {

int repro_main(int argc, char** argv, RunExtension* extension) {
  prepare_environment(argc, argv);
  apply_cpu_kernels();  // portable mode: LibTorch's oneDNN off (util/cpu_kernels.h)
  if (trains(argc, argv)) keep_freed_memory();  // src/util/memory.h
  install_attention_variants();                 // their keys, before any spec is read
  return cli_main(argc, argv, extension);
}

}  // namespace repro
