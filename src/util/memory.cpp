// glibc's malloc for training (reasons in memory.h).
#include "util/memory.h"

#include <malloc.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace repro {

namespace {

std::string g_policy = "glibc defaults";

bool user_tunes_malloc() {
  for (const char* name : {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_"})
    if (std::getenv(name) != nullptr) return true;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  return tunables != nullptr && std::strstr(tunables, "glibc.malloc.") != nullptr;
}

}  // namespace

uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page_size > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size) : 0;
}

void keep_freed_memory() {
  if (user_tunes_malloc()) {
    g_policy = "set by the environment";
    return;
  }
  constexpr int kOneGiB = 1 << 30;
  if (::mallopt(M_MMAP_THRESHOLD, kOneGiB) == 1 && ::mallopt(M_TRIM_THRESHOLD, kOneGiB) == 1)
    g_policy = "mmap/trim thresholds 1 GiB (repro)";
}

std::string malloc_policy() { return g_policy; }

}  // namespace repro
