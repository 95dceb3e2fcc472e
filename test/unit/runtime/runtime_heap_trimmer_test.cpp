#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "runtime/controller.hpp"
#include "runtime/heap_trimmer.hpp"
#include "runtime/work_queue.hpp"

using namespace cfo::runtime;
using cfo::ManualClock;
using namespace std::chrono_literals;

TEST(HeapTrimmer, TrimsAtOnceThenAtMostOncePerInterval) {
  ManualClock clock;
  int released = 0;
  HeapTrimmer trimmer(10s, clock.fn(), [&] { ++released; });
  EXPECT_TRUE(trimmer.maybe_trim());  // the first drain after start-up trims
  EXPECT_FALSE(trimmer.maybe_trim());
  clock.advance(9999ms);
  EXPECT_FALSE(trimmer.maybe_trim());
  clock.advance(1ms);
  EXPECT_TRUE(trimmer.maybe_trim());
  EXPECT_FALSE(trimmer.maybe_trim());
  EXPECT_EQ(released, 2);
  EXPECT_EQ(trimmer.trims(), 2u);
}

namespace {
// The resident anonymous memory of this process (RssAnon of /proc/self/status), in KiB; -1 when unreadable.
long rss_anon_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("RssAnon:", 0) == 0) return std::strtol(line.c_str() + 8, nullptr, 10);
  return -1;
}
}  // namespace

TEST(HeapTrimmer, TheRealTrimGivesFreedPagesInTheMiddleOfTheHeapBack) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the sanitizers' allocators replace glibc's malloc, which malloc_trim releases from";
#endif
  if (rss_anon_kib() < 0) GTEST_SKIP() << "no /proc/self/status";
  HeapTrimmer trimmer(1h);
  trimmer.maybe_trim();  // a clean start: what earlier tests freed is released already
  // 512 blocks of 64 KiB (under glibc's 128 KiB mmap threshold: they come from the heap), written so that they are
  // resident; every other one freed leaves 16 MiB of holes that malloc keeps, as neighbours pin them.
  constexpr std::size_t kBlock = 64 * 1024;
  std::vector<std::unique_ptr<char[]>> blocks;
  for (int i = 0; i < 512; ++i) {
    blocks.emplace_back(new char[kBlock]);
    std::memset(blocks.back().get(), 'x', kBlock);
  }
  for (std::size_t i = 0; i < blocks.size(); i += 2) blocks[i].reset();
  HeapTrimmer later(1h);
  const long before = rss_anon_kib();
  EXPECT_TRUE(later.maybe_trim());
  const long after = rss_anon_kib();
  EXPECT_LT(after, before - 8 * 1024) << "before " << before << " KiB, after " << after << " KiB";
  for (std::size_t i = 1; i < blocks.size(); i += 2) EXPECT_EQ(blocks[i][kBlock - 1], 'x');
}

TEST(Controller, CallsOnIdleOnlyWhenTheQueueDrains) {
  ManualClock clock;
  auto queue = std::make_shared<WorkQueue>(WorkQueueOptions{.backoff = {}, .now = clock.fn()});
  int idle = 0;
  std::vector<std::string> order;
  ControllerOptions opts;
  opts.on_idle = [&] {
    ++idle;
    order.emplace_back("idle");
  };
  Controller controller(opts, queue, [&](const std::string& key) {
    order.push_back(key);
    return ReconcileResult::ok();
  });
  queue->add("ns/a");
  queue->add("ns/b");
  ASSERT_TRUE(controller.process_next());
  EXPECT_EQ(idle, 0);  // ns/b is still waiting
  ASSERT_TRUE(controller.process_next());
  EXPECT_EQ(idle, 1);
  EXPECT_EQ(order, (std::vector<std::string>{"ns/a", "ns/b", "idle"}));
}
