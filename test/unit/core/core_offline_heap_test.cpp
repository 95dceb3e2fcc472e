// The offline commands' heap (core/offline_heap.hpp): mallopt settings and huge-page advice for each thread's heap,
// checked on the process's own mappings. Each case runs in a forked child: the settings last for a process.
#include "core/offline_heap.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

using namespace cfo::heap;

namespace {

std::string read_text(const char* path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The VmFlags of the mapping of /proc/self/smaps that holds `address` ("" when none does).
std::string vm_flags_of(const void* address) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::istringstream smaps(read_text("/proc/self/smaps"));
  bool holding = false;
  for (std::string line; std::getline(smaps, line);) {
    if (line.starts_with("VmFlags:")) {
      if (holding) return line;
      continue;
    }
    if (mapping_holding(line, at)) holding = true;
  }
  return "";
}

// The line of /proc/self/maps that holds `address` ("" when none does).
std::string maps_line_of(const void* address) {
  std::istringstream maps(read_text("/proc/self/maps"));
  for (std::string line; std::getline(maps, line);)
    if (mapping_holding(line, reinterpret_cast<std::uintptr_t>(address))) return line;
  return "";
}

bool has_flag(const std::string& vm_flags, const char* flag) {
  return vm_flags.find(std::string(" ") + flag) != std::string::npos;
}

// Runs `body` in a forked child and returns its exit status (-1 when it did not exit).
template <class Body>
int in_child(const Body& body) {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(body());
  int status = 0;
  if (child < 0 || ::waitpid(child, &status, 0) != child || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

constexpr const char* kProbeVariable = "CFO_OFFLINE_HEAP_PROBE";

bool transparent_huge_pages() {
  const std::string mode = read_text("/sys/kernel/mm/transparent_hugepage/enabled");
  return !mode.empty() && mode.find("[never]") == std::string::npos;
}

}  // namespace

TEST(OfflineHeap, TheMappingHoldingAnAddressIsReadFromMapsLines) {
  const std::string maps =
      "00400000-00452000 r-xp 00000000 08:02 173521      /usr/bin/dbus-daemon\n"
      "not a line of maps\n"
      "e03000-1000000 rw-p 00000000 00:00 0                                  [heap]\n"
      "7f2c8c000000-7f2c90000000 rw-p 00000000 00:00 0 \n"
      "7fff0000-7fff1000 rw-p 00000000 00:00 0";  // no line break at the end
  const Mapping heap = mapping_holding(maps, 0xe03000).value_or(Mapping{});
  EXPECT_EQ(heap.begin, 0xe03000u);
  EXPECT_EQ(heap.end, 0x1000000u);
  EXPECT_FALSE(mapping_holding(maps, 0x1000000)) << "the end is past the mapping";
  EXPECT_EQ(mapping_holding(maps, 0x7f2c8fffffff).value_or(Mapping{}).begin, 0x7f2c8c000000u);
  EXPECT_TRUE(mapping_holding(maps, 0x7fff0fff));
  EXPECT_FALSE(mapping_holding(maps, 0x3fffff));
  EXPECT_FALSE(mapping_holding("", 0x400000));
  EXPECT_FALSE(mapping_holding("zzzz-00452000 r-xp\n00400000-", 0x400000));
}

// The checks of a fresh process: it runs only this test, started by run_probe (in a forked test process the heap is
// already in use: blocks come from what other tests freed, and glibc has moved its mmap threshold). With the probe
// variable "on" the offline heap must take effect, with "off" (GLIBC_TUNABLES set by the parent) it must not. The exit
// status says what failed.
TEST(OfflineHeapProbe, ChecksTheHeapOfAFreshProcess) {
  const char* mode = std::getenv(kProbeVariable);
  if (mode == nullptr) GTEST_SKIP() << "run by the OfflineHeap tests";
  std::fflush(nullptr);
  constexpr std::size_t kLarge = std::size_t{4} << 20;
  if (std::string(mode) == "off") {
    if (use_offline_heap() || offline_heap_in_use()) ::_exit(3);
    void* large = std::malloc(kLarge);
    ::_exit(maps_line_of(large).ends_with("[heap]") ? 4 : 0);  // the default threshold: a mapping of its own
  }
  ::unsetenv("GLIBC_TUNABLES");
  if (!use_offline_heap() || !offline_heap_in_use()) ::_exit(3);
  void* large = std::malloc(kLarge);
  if (!maps_line_of(large).ends_with("[heap]")) ::_exit(4);
  // The heap's start before its first 2 MiB boundary keeps small pages; the block's last byte is past it.
  if (!has_flag(vm_flags_of(static_cast<char*>(large) + kLarge - 1), "hg")) ::_exit(5);
  int helper = 0;
  std::thread([&] {
    prepare_thread_heap();
    void* own = std::malloc(4096);
    helper = has_flag(vm_flags_of(own), "hg") ? 0 : 6;
    std::free(own);
  }).join();
  std::free(large);
  ::_exit(helper);
}

namespace {

// The exit status of OfflineHeapProbe in a fresh process of this test binary, with the probe variable set to `mode`
// and GLIBC_TUNABLES to `tunables` (unset when null).
int run_probe(const char* mode, const char* tunables) {
  return in_child([&] {
    ::setenv(kProbeVariable, mode, 1);
    if (tunables)
      ::setenv("GLIBC_TUNABLES", tunables, 1);
    else
      ::unsetenv("GLIBC_TUNABLES");
    std::string self = "/proc/self/exe", filter = "--gtest_filter=OfflineHeapProbe.*";
    char* argv[] = {self.data(), filter.data(), nullptr};
    ::execv(self.c_str(), argv);
    return 2;
  });
}

}  // namespace

// With the offline heap a 4 MiB block comes from the main heap (brk), not a mapping of its own (M_MMAP_THRESHOLD),
// and the heaps of the main thread and of a helper that prepared its own are advised for huge pages.
TEST(OfflineHeap, LargeBlocksComeFromHeapsThatAreAdvisedForHugePages) {
  if (!transparent_huge_pages()) GTEST_SKIP() << "the kernel has no transparent huge pages";
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "a sanitizer's allocator replaces glibc's malloc (its mallopt does nothing)";
#endif
  EXPECT_EQ(run_probe("on", nullptr), 0) << "2: not started; 3: not in use; 4: the large block has a mapping of its "
                                            "own; 5: the main heap is not advised; 6: the helper's heap is not advised";
}

// Without use_offline_heap (as in `run`) a thread's preparation changes nothing.
TEST(OfflineHeap, PreparingAThreadDoesNothingWithoutTheOfflineHeap) {
  const int status = in_child([] {
    if (offline_heap_in_use()) return 3;
    int out = 0;
    std::thread([&] {
      prepare_thread_heap();
      void* own = std::malloc(4096);
      out = has_flag(vm_flags_of(own), "hg") ? 4 : 0;
      std::free(own);
    }).join();
    return out;
  });
  EXPECT_EQ(status, 0) << "3: in use without being asked; 4: the thread's heap was advised";
}

// A GLIBC_TUNABLES set by the user (even empty) keeps the last word: nothing is changed.
TEST(OfflineHeap, AVariableSetByTheUserLeavesTheHeapAsItIs) {
  for (const char* value : {"glibc.malloc.arena_max=1", ""})
    EXPECT_EQ(run_probe("off", value), 0)
        << "GLIBC_TUNABLES=" << value << " 2: not started; 3: used anyway; 4: the default threshold was changed";
}

// Under `ulimit -v` the larger heap steps would spend the limit (the thirty-first user trial met an abort at 120 MB
// that the default heap runs in): the command runs with the default heap.
TEST(OfflineHeap, ALimitedAddressSpaceKeepsTheDefaultHeap) {
  const int status = in_child([] {
    ::unsetenv("GLIBC_TUNABLES");
    rlimit limit{};
    ::getrlimit(RLIMIT_AS, &limit);
    limit.rlim_cur = rlim_t{64} << 30;
    if (::setrlimit(RLIMIT_AS, &limit) != 0) return 4;
    return use_offline_heap() || offline_heap_in_use() ? 3 : 0;
  });
  EXPECT_EQ(status, 0) << "3: used under a limit; 4: setrlimit failed";
}
