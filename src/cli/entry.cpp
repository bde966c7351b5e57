// The program around the command line: the process set-up of repro and repro-faults (cli/cli.h: repro_main).
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "cli/cli.h"
#include "models/attention/registry.h"
#include "util/memory.h"

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

void prefer_passive_openmp(int argc, char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr || !trains(argc, argv)) return;
  if (::setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
  ::execv("/proc/self/exe", argv);  // returns only on failure: go on with the default policy
}

}  // namespace

namespace repro {

int repro_main(int argc, char** argv, RunExtension* extension) {
  prefer_passive_openmp(argc, argv);
  if (trains(argc, argv)) keep_freed_memory();  // src/util/memory.h
  install_attention_variants();                 // their keys, before any spec is read
  return cli_main(argc, argv, extension);
}

}  // namespace repro
