#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.hpp"
#include "runtime/work_queue.hpp"

using namespace cfo::runtime;
using cfo::ManualClock;
using namespace std::chrono_literals;

namespace {

struct FakeClockQueue {
  ManualClock clock;
  WorkQueue queue{WorkQueueOptions{.backoff = {}, .now = clock.fn()}};
  FakeClockQueue() {
    clock.on_advance([this] { queue.wake_waiters(); });
  }
};

}  // namespace

TEST(WorkQueue, WaitingKeyIsNotQueuedTwice) {
  WorkQueue q;
  q.add("ns/a");
  q.add("ns/a");
  q.add("ns/b");
  EXPECT_EQ(q.len(), 2u);
  EXPECT_EQ(q.try_get(), "ns/a");
  EXPECT_EQ(q.try_get(), "ns/b");
  EXPECT_EQ(q.try_get(), std::nullopt);
}

TEST(WorkQueue, AddsDuringProcessingCoalesceIntoOneMoreRound) {
  WorkQueue q;
  q.add("ns/a");
  ASSERT_EQ(q.try_get(), "ns/a");
  q.add("ns/a");
  q.add("ns/a");
  q.add("ns/a");
  // Not handed out again while the first round runs.
  EXPECT_EQ(q.len(), 0u);
  EXPECT_EQ(q.try_get(), std::nullopt);
  q.done("ns/a");
  EXPECT_EQ(q.len(), 1u);
  EXPECT_EQ(q.try_get(), "ns/a");
  q.done("ns/a");
  EXPECT_EQ(q.try_get(), std::nullopt);
}

TEST(WorkQueue, DoneWithoutReAddDoesNotRequeue) {
  WorkQueue q;
  q.add("a");
  ASSERT_EQ(q.try_get(), "a");
  q.done("a");
  EXPECT_EQ(q.len(), 0u);
  EXPECT_EQ(q.try_get(), std::nullopt);
}

TEST(WorkQueue, KeyIsNeverHandedToTwoWorkersAtOnce) {
  WorkQueue q;
  const std::vector<std::string> keys{"ns/a", "ns/b", "ns/c"};
  std::mutex mu;
  std::set<std::string> in_flight;
  std::map<std::string, int> rounds;
  std::atomic<int> overlaps{0};
  std::atomic<int> active{0};

  std::vector<std::thread> workers;
  for (int w = 0; w < 4; ++w)
    workers.emplace_back([&] {
      while (auto key = q.get()) {
        ++active;
        {
          std::lock_guard lk(mu);
          if (!in_flight.insert(*key).second) ++overlaps;
          ++rounds[*key];
        }
        for (int i = 0; i < 50; ++i) std::this_thread::yield();  // widen the window for a second worker
        {
          std::lock_guard lk(mu);
          in_flight.erase(*key);
        }
        --active;
        q.done(*key);
      }
    });

  std::vector<std::thread> producers;
  for (int p = 0; p < 2; ++p)
    producers.emplace_back([&] {
      for (int i = 0; i < 3000; ++i) q.add(keys[static_cast<std::size_t>(i) % keys.size()]);
    });
  for (auto& p : producers) p.join();

  // Let the workers take what is left before shutting down (shut_down drops waiting keys).
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while ((q.len() > 0 || active.load() > 0) && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  q.shut_down();
  for (auto& w : workers) w.join();

  EXPECT_EQ(overlaps.load(), 0);
  for (const auto& k : keys) {
    EXPECT_GE(rounds[k], 1) << k;
    EXPECT_LE(rounds[k], 2000) << k;  // coalesced: never more rounds than adds
  }
}

TEST(WorkQueue, AddRateLimitedWaitsTheBackoffOnTheInjectedClock) {
  FakeClockQueue f;
  WorkQueue& q = f.queue;
  q.add_rate_limited("a");
  EXPECT_EQ(q.num_requeues("a"), 1);
  EXPECT_EQ(q.len(), 0u);
  EXPECT_EQ(q.num_delayed(), 1u);
  f.clock.advance(std::chrono::milliseconds(4));
  EXPECT_EQ(q.try_get(), std::nullopt);
  f.clock.advance(std::chrono::milliseconds(1));
  EXPECT_EQ(q.len(), 1u);
  ASSERT_EQ(q.try_get(), "a");
  q.done("a");

  q.add_rate_limited("a");  // second failure: 10 ms
  f.clock.advance(std::chrono::milliseconds(9));
  EXPECT_EQ(q.try_get(), std::nullopt);
  f.clock.advance(std::chrono::milliseconds(1));
  ASSERT_EQ(q.try_get(), "a");
  q.done("a");

  q.forget("a");
  EXPECT_EQ(q.num_requeues("a"), 0);
  q.add_rate_limited("a");  // back to 5 ms
  f.clock.advance(std::chrono::milliseconds(5));
  EXPECT_EQ(q.try_get(), "a");
}

TEST(WorkQueue, AddAfterBecomesReadyAtItsDeadline) {
  FakeClockQueue f;
  WorkQueue& q = f.queue;
  q.add_after("a", 100);
  f.clock.advance(std::chrono::milliseconds(99));
  EXPECT_EQ(q.try_get(), std::nullopt);
  f.clock.advance(std::chrono::milliseconds(1));
  EXPECT_EQ(q.try_get(), "a");
}

TEST(WorkQueue, AddAfterKeepsTheEarlierDeadline) {
  FakeClockQueue f;
  WorkQueue& q = f.queue;
  q.add_after("later-first", 100);
  q.add_after("later-first", 50);
  q.add_after("earlier-first", 50);
  q.add_after("earlier-first", 100);
  EXPECT_EQ(q.num_delayed(), 2u);
  f.clock.advance(std::chrono::milliseconds(50));
  EXPECT_EQ(q.len(), 2u);
  std::set<std::string> got{*q.try_get(), *q.try_get()};
  EXPECT_EQ(got, (std::set<std::string>{"later-first", "earlier-first"}));
  EXPECT_EQ(q.num_delayed(), 0u);
}

TEST(WorkQueue, AddAfterOfAWaitingKeyCoalesces) {
  FakeClockQueue f;
  WorkQueue& q = f.queue;
  q.add("a");
  q.add_after("a", 10);
  q.add_after("b", 0);  // no delay: queued at once
  EXPECT_EQ(q.len(), 2u);
  f.clock.advance(std::chrono::milliseconds(10));
  EXPECT_EQ(q.try_get(), "a");
  EXPECT_EQ(q.try_get(), "b");
  EXPECT_EQ(q.try_get(), std::nullopt);
}

TEST(WorkQueue, DelayedKeyBeingProcessedIsMarkedDirty) {
  FakeClockQueue f;
  WorkQueue& q = f.queue;
  q.add("a");
  ASSERT_EQ(q.try_get(), "a");
  q.add_after("a", 10);
  f.clock.advance(std::chrono::milliseconds(10));
  EXPECT_EQ(q.try_get(), std::nullopt);  // still processing
  q.done("a");
  EXPECT_EQ(q.try_get(), "a");
}

TEST(WorkQueue, BlockedGetterWakesWhenTheFakeClockAdvances) {
  FakeClockQueue f;
  WorkQueue& q = f.queue;
  q.add_after("a", 3600 * 1000);  // an hour: without the wake-up the getter would sleep that long
  auto got = std::async(std::launch::async, [&] { return q.get(); });
  f.clock.advance(std::chrono::milliseconds(3600 * 1000));
  ASSERT_EQ(got.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(got.get(), "a");
}

TEST(WorkQueue, BlockedGetterWakesOnAdd) {
  WorkQueue q;
  auto got = std::async(std::launch::async, [&] { return q.get(); });
  q.add("x");
  ASSERT_EQ(got.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(got.get(), "x");
}

TEST(WorkQueue, ShutDownWakesEveryGetter) {
  WorkQueue q;
  std::vector<std::future<std::optional<std::string>>> getters;
  for (int i = 0; i < 3; ++i) getters.push_back(std::async(std::launch::async, [&] { return q.get(); }));
  q.shut_down();
  for (auto& g : getters) {
    ASSERT_EQ(g.wait_for(10s), std::future_status::ready);
    EXPECT_EQ(g.get(), std::nullopt);
  }
  EXPECT_TRUE(q.shutting_down());
}

TEST(WorkQueue, AfterShutDownGetReturnsAtOnceAndAddsAreIgnored) {
  WorkQueue q;
  q.add("waiting");
  q.shut_down();
  EXPECT_EQ(q.get(), std::nullopt);  // documented: waiting keys are dropped, get does not drain
  q.add("late");
  q.add_after("late", 5);
  q.add_rate_limited("late");
  EXPECT_EQ(q.try_get(), std::nullopt);
  EXPECT_EQ(q.num_delayed(), 0u);
}
