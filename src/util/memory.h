#pragma once
// glibc's malloc for training: keep freed large blocks for reuse.
//
// Large tensors are above glibc's mmap threshold (at most 32 MiB unless set; a 32 × 8 × 256 × 256
// attention map is 64 MiB), so each step mapped them afresh and the kernel zeroed their pages, and
// freed memory at the top of the heap went back to the system (trim threshold 128 KiB): page faults
// took ~30% of a dgsa IMDB training step (perf); with both thresholds at 1 GiB the step went from
// 4,368 to 2,737 ms and peak memory up 13% (docs/performance.md).
#include <cstdint>
#include <string>

namespace repro {

// Sets glibc's mmap and trim thresholds to 1 GiB unless the user set glibc's malloc variables
// (MALLOC_*_ or GLIBC_TUNABLES with glibc.malloc.*). Called by main for training subcommands.
void keep_freed_memory();

// The machine's physical memory in bytes (sysconf; 0 when it does not say).
uint64_t physical_memory_bytes();

// What this process's malloc does, for environment records: "mmap/trim thresholds 1 GiB (repro)",
// "set by the environment" or "glibc defaults".
std::string malloc_policy();

}  // namespace repro
