#include "core/offline_heap.hpp"

#include <fcntl.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <string>

namespace cfo::heap {

namespace {

constexpr int kTopPadBytes = 64 << 20;         // M_TOP_PAD: each heap grows (and keeps) this much beyond a request
constexpr int kMmapThresholdBytes = 32 << 20;  // M_MMAP_THRESHOLD: glibc's largest; below it blocks come from a heap
constexpr std::size_t kProbeBytes = std::size_t{1} << 20;
constexpr std::uintptr_t kHugePageBytes = std::uintptr_t{2} << 20;  // x86-64 and arm64 (4 KiB base pages)
constexpr std::size_t kMaxMapsBytes = std::size_t{16} << 20;
#ifdef MADV_COLLAPSE
constexpr int kMadvCollapse = MADV_COLLAPSE;
#else
constexpr int kMadvCollapse = 25;  // Linux 6.1 uapi; older kernels answer EINVAL, which is ignored
#endif

std::atomic<bool> in_use{false};

// True when the address space or the data segment is limited (`ulimit -v`, `ulimit -d`).
bool memory_limited() {
  for (int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    rlimit limit{};
    if (::getrlimit(resource, &limit) != 0 || limit.rlim_cur != RLIM_INFINITY) return true;
  }
  return false;
}

// The text of /proc/self/maps, by plain reads (this runs before the binary's static constructors); empty without it.
std::string own_maps() {
  const int fd = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string maps;
  char chunk[16384];
  for (ssize_t n; (n = ::read(fd, chunk, sizeof chunk)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || maps.size() > kMaxMapsBytes) {
      maps.clear();
      break;
    }
    maps.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return maps;
}

std::optional<std::uintptr_t> hex_at(std::string_view text, std::size_t& at, char end) {
  std::uintptr_t value = 0;
  const auto [next, ec] = std::from_chars(text.data() + at, text.data() + text.size(), value, 16);
  if (ec != std::errc() || next == text.data() + text.size() || *next != end) return std::nullopt;
  at = static_cast<std::size_t>(next - text.data()) + 1;
  return value;
}

}  // namespace

std::optional<Mapping> mapping_holding(std::string_view maps, std::uintptr_t address) {
  for (std::size_t from = 0; from < maps.size();) {
    std::size_t to = maps.find('\n', from);
    if (to == std::string_view::npos) to = maps.size();
    const std::string_view line = maps.substr(from, to - from);
    from = to + 1;
    std::size_t at = 0;
    const auto begin = hex_at(line, at, '-');
    const auto end = begin ? hex_at(line, at, ' ') : std::nullopt;
    if (end && *begin <= address && address < *end) return Mapping{*begin, *end};
  }
  return std::nullopt;
}

bool use_offline_heap() {
  if (std::getenv("GLIBC_TUNABLES") != nullptr || memory_limited()) return false;
  // mallopt answers 1 on success; the threshold first, so that the probe below comes from the heap.
  if (mallopt(M_MMAP_THRESHOLD, kMmapThresholdBytes) != 1 || mallopt(M_TOP_PAD, kTopPadBytes) != 1) return false;
  in_use.store(true, std::memory_order_relaxed);
  prepare_thread_heap();
  return true;
}

bool offline_heap_in_use() { return in_use.load(std::memory_order_relaxed); }

void prepare_thread_heap() {
  if (!offline_heap_in_use()) return;
  void* probe = std::malloc(kProbeBytes);
  if (probe == nullptr) return;
  const auto block = reinterpret_cast<std::uintptr_t>(probe);
  const std::string maps = own_maps();
  if (const auto heap = mapping_holding(maps, block)) {
    // The advice shapes later faults only: the huge pages that malloc has touched already (the heap's and the block's
    // headers, the header of the free rest just past the block) are collapsed, at most two.
    const std::uintptr_t from = (heap->begin + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
    const std::uintptr_t to = heap->end & ~(kHugePageBytes - 1);
    const std::uintptr_t touched_end = block + kProbeBytes + 64;
    // The addresses come from a block of the heap: offsets from it keep its provenance.
    char* const base = static_cast<char*>(probe);
    auto at = [&](std::uintptr_t address) { return base + (address - block); };
    if (to > from && ::madvise(at(from), to - from, MADV_HUGEPAGE) == 0)
      for (std::uintptr_t page = from; page < touched_end && page + kHugePageBytes <= to; page += kHugePageBytes)
        ::madvise(at(page), kHugePageBytes, kMadvCollapse);
  }
  std::free(probe);
}

}  // namespace cfo::heap
