#pragma once
// The heap settings of the offline commands (`render`, `validate`). They allocate tens of MiB within a fraction of a
// second and exit; with 4 KiB pages nearly every page of it costs a page fault, about 10 us each on a VM (a third of
// a one-file `validate` and a quarter of a 2000-document one). glibc (2.35 and later) backs its heaps with
// transparent huge pages when its `glibc.malloc.hugetlb=1` tunable is set, and a large `glibc.malloc.top_pad` grows
// the main heap in steps a huge page fits in (glibc manual, "Memory Allocation Tunables"). Tunables are read only
// when a process starts, so an offline command re-executes itself once with them set.
//
// `run` keeps the default heap: the operator stays up, and whole huge pages would inflate its resident memory.

namespace cfo::cmd {

/// The GLIBC_TUNABLES value the offline commands run with: huge pages for malloc's heaps and a 64 MiB top pad.
inline constexpr const char* kOfflineMallocTunables = "glibc.malloc.hugetlb=1:glibc.malloc.top_pad=67108864";

/// Re-executes the running binary (the file /proc/self/maps says its code comes from, same argv and environment,
/// so that its process name stays) with GLIBC_TUNABLES set to kOfflineMallocTunables. It does not when GLIBC_TUNABLES
/// is set already (by the user, who keeps the last word, or by this re-execution: it happens once), when the address
/// space or the data segment is limited (`ulimit -v` / `-d`: the larger heap steps need more of it), or when the
/// binary cannot be found (no /proc). Returns only when it did not re-execute (also when the exec failed: the binary
/// was replaced, its mount forbids exec); the command then runs with the default heap, which changes its speed and
/// peak memory (about 15% less), never its output. Called before any thread starts: from offline_heap_first (main.cpp),
/// an entry of the executable's init_array, so that the first process skips the binary's static constructors.
void reexec_with_offline_malloc_tunables(char** argv);

/// True for the command lines that run with the offline heap: `render ...` and `validate ...` (argv[1]).
bool wants_offline_heap(int argc, char** argv);

}  // namespace cfo::cmd
