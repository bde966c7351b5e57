// A stand-in for a CPU that OpenBLAS does not know (tests/test_blas_kernels.cpp): preloaded (LD_PRELOAD), it answers
// openblas_get_corename() with "Prescott", OpenBLAS's generic kernels, as Debian 12's OpenBLAS does on Intel's family
// 6 model 207, unless OPENBLAS_CORETYPE is set; then it asks the real OpenBLAS, which obeys that variable.
#include <dlfcn.h>

#include <cstdlib>

extern "C" char* openblas_get_corename() {
  static char generic[] = "Prescott";
  if (std::getenv("OPENBLAS_CORETYPE") == nullptr) return generic;
  using CoreName = char* (*)();
  const auto real = reinterpret_cast<CoreName>(::dlsym(RTLD_NEXT, "openblas_get_corename"));
  return real ? real() : generic;
}
