// core/parallel.hpp: every item once, on the threads asked for, the caller among them.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "core/parallel.hpp"

using cfo::for_each_index_in_parallel;

TEST(Parallel, EveryIndexIsCalledOnceOnAtMostTheThreadsAsked) {
  constexpr std::size_t kCount = 5000;
  std::vector<std::atomic<int>> calls(kCount);
  std::mutex mu;
  std::set<std::thread::id> seen;
  for_each_index_in_parallel(kCount, 3, [&](std::size_t i) {
    calls[i].fetch_add(1);
    std::lock_guard lock(mu);
    seen.insert(std::this_thread::get_id());
  });
  for (std::size_t i = 0; i < kCount; ++i) EXPECT_EQ(calls[i].load(), 1) << "index " << i;
  EXPECT_LE(seen.size(), 3u);
}

// Which thread takes which item is up to the scheduler: helpers may take all 5000 items above before the caller
// starts. Here every item waits until `threads` items are held at once, so three different threads must each hold
// one; with two helpers, the caller has to be the third.
TEST(Parallel, TheCallingThreadIsOneOfTheThreads) {
  constexpr std::size_t kThreads = 3;
  std::mutex mu;
  std::condition_variable all_held;
  std::size_t held = 0;
  std::set<std::thread::id> seen;
  bool timed_out = false;
  for_each_index_in_parallel(kThreads, kThreads, [&](std::size_t) {
    std::unique_lock lock(mu);
    seen.insert(std::this_thread::get_id());
    if (++held == kThreads) all_held.notify_all();
    if (!all_held.wait_for(lock, std::chrono::seconds(30), [&] { return held == kThreads; })) timed_out = true;
  });
  EXPECT_FALSE(timed_out) << "fewer than " << kThreads << " threads held items at once";
  EXPECT_EQ(seen.size(), kThreads);
  EXPECT_TRUE(seen.contains(std::this_thread::get_id())) << "the calling thread works too";
}

TEST(Parallel, OneThreadOrFewItemsStayOnTheCallingThread) {
  std::set<std::thread::id> seen;
  for_each_index_in_parallel(10, 1, [&](std::size_t) { seen.insert(std::this_thread::get_id()); });
  EXPECT_EQ(seen, std::set<std::thread::id>{std::this_thread::get_id()});
  int calls = 0;
  for_each_index_in_parallel(0, 8, [&](std::size_t) { ++calls; });
  EXPECT_EQ(calls, 0);
  seen.clear();
  for_each_index_in_parallel(1, 8, [&](std::size_t) { seen.insert(std::this_thread::get_id()); });
  EXPECT_EQ(seen, std::set<std::thread::id>{std::this_thread::get_id()}) << "no helper for a single item";
}

TEST(Parallel, WorkerThreadsIsBetweenOneAndTheMaximum) {
  EXPECT_EQ(cfo::worker_threads(1), 1u);
  EXPECT_GE(cfo::worker_threads(64), 1u);
  EXPECT_LE(cfo::worker_threads(2), 2u);
  EXPECT_EQ(cfo::worker_threads(0), 1u);
}
