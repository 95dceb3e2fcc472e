#pragma once
// The heap of the offline commands (`render`, `validate`). They allocate tens of MiB within a fraction of a second and
// exit; with 4 KiB pages nearly every page of it costs a page fault, about 10 us each on a VM (a third of a one-file
// `validate` and a quarter of a 2000-document one). Here malloc is told, through mallopt (glibc manual, "Malloc
// Tunable Parameters"), to grow its heaps in 64 MiB steps (M_TOP_PAD) and to serve blocks up to 32 MiB from them
// (M_MMAP_THRESHOLD), and the kernel is asked to back each heap with transparent huge pages (madvise MADV_HUGEPAGE,
// and MADV_COLLAPSE for the huge page that malloc touched before the advice). Everything happens inside the process:
// glibc's own switch (the glibc.malloc.hugetlb tunable) is read only at start, and re-executing the binary to set it
// cost each run 5-7 ms.
//
// `run` keeps the default heap: the operator stays up, and whole huge pages would inflate its resident memory.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace cfo::heap {

/// The span [begin, end) of a mapping of the process, in bytes of address.
struct Mapping {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
};

/// Sets the heap up for a short run that allocates much: mallopt M_TOP_PAD 64 MiB and M_MMAP_THRESHOLD 32 MiB, then
/// huge pages for the calling thread's heap (prepare_thread_heap). Call it once, before any other thread starts (from
/// the executable's init_array: cmd/main.cpp). Does nothing and returns false when GLIBC_TUNABLES is set (the user's
/// heap settings keep the last word; `GLIBC_TUNABLES=` turns this off) or when the address space or the data segment
/// is limited (`ulimit -v` / `-d`: the larger heap steps would spend a limit the default heap fits in). Whatever it
/// does changes the speed and the peak memory of a command (huge pages: up to 2 MiB more a thread), never its output.
bool use_offline_heap();

/// Whether use_offline_heap took effect in this process.
bool offline_heap_in_use();

/// Asks the kernel for huge pages for the heap the calling thread allocates from (glibc gives each thread that
/// allocates while another holds the lock an arena of its own): a 1 MiB block is allocated, which grows that heap by
/// the top pad, and the mapping that holds it (/proc/self/maps) gets MADV_HUGEPAGE from its first 2 MiB boundary on;
/// the huge pages up to the block's end, which malloc touched before the advice, are collapsed (MADV_COLLAPSE, Linux
/// 6.1 and later; without it they stay in 4 KiB pages). What lies before that boundary (the start of the main heap)
/// keeps 4 KiB pages. Costs about 0.1 ms. A no-op unless offline_heap_in_use().
/// Called by a thread that is about to allocate much, before it does: for_each_index_in_parallel's helpers
/// (core/parallel.hpp), the offline commands' CRD loader. Failures (no /proc, a kernel without THP) are ignored.
void prepare_thread_heap();

/// The mapping that holds `address`, read from `maps` (the text of /proc/PID/maps: "begin-end perms ..." in hex, a
/// line each); nullopt when no line holds it.
std::optional<Mapping> mapping_holding(std::string_view maps, std::uintptr_t address);

}  // namespace cfo::heap
