// core/parallel.hpp: every item once, on the threads asked for, the caller among them.
#include <gtest/gtest.h>

#include <atomic>
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
