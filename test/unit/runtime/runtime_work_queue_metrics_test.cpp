// What the work queue reports to its observer (the workqueue_* metrics) and its overall retry bucket.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "runtime/work_queue.hpp"

using namespace cfo::runtime;
using cfo::ManualClock;

namespace {

struct RecordingObserver : WorkQueueObserver {
  int adds = 0, retries = 0;
  std::vector<double> queued, worked;
  void on_add() override { ++adds; }
  void on_retry() override { ++retries; }
  void on_get(double s) override { queued.push_back(s); }
  void on_done(double s) override { worked.push_back(s); }
};

struct Fixture {
  ManualClock clock;
  std::shared_ptr<RecordingObserver> observer = std::make_shared<RecordingObserver>();
  WorkQueue queue{WorkQueueOptions{.backoff = {}, .now = clock.fn(), .bucket = {}, .observer = observer}};
};

}  // namespace

TEST(WorkQueueMetrics, AddsAreCountedOnceUntilTheKeyIsTaken) {
  Fixture f;
  f.queue.add("ns/a");
  f.queue.add("ns/a");  // coalesced: not a new add
  f.queue.add("ns/b");
  EXPECT_EQ(f.observer->adds, 2);
  EXPECT_EQ(f.queue.snapshot().depth, 2u);
  ASSERT_EQ(f.queue.try_get(), "ns/a");
  EXPECT_EQ(f.queue.snapshot().depth, 1u);
  f.queue.add("ns/a");  // while processing: counted, and waits for done()
  EXPECT_EQ(f.observer->adds, 3);
  EXPECT_EQ(f.queue.snapshot().depth, 2u);
}

TEST(WorkQueueMetrics, QueueAndWorkDurationsFollowTheClock) {
  Fixture f;
  f.queue.add("ns/a");
  f.clock.advance(std::chrono::milliseconds(30));
  ASSERT_EQ(f.queue.try_get(), "ns/a");
  ASSERT_EQ(f.observer->queued.size(), 1u);
  EXPECT_DOUBLE_EQ(f.observer->queued[0], 0.030);

  f.clock.advance(std::chrono::milliseconds(50));
  WorkQueueSnapshot s = f.queue.snapshot();
  EXPECT_EQ(s.processing, 1u);
  EXPECT_DOUBLE_EQ(s.unfinished_work_seconds, 0.050);
  EXPECT_DOUBLE_EQ(s.longest_running_seconds, 0.050);

  f.queue.add("ns/b");
  ASSERT_EQ(f.queue.try_get(), "ns/b");
  f.clock.advance(std::chrono::milliseconds(10));
  s = f.queue.snapshot();
  EXPECT_DOUBLE_EQ(s.unfinished_work_seconds, 0.060 + 0.010);
  EXPECT_DOUBLE_EQ(s.longest_running_seconds, 0.060);

  f.queue.done("ns/a");
  ASSERT_EQ(f.observer->worked.size(), 1u);
  EXPECT_DOUBLE_EQ(f.observer->worked[0], 0.060);
  s = f.queue.snapshot();
  EXPECT_EQ(s.processing, 1u);
  EXPECT_DOUBLE_EQ(s.longest_running_seconds, 0.010);
}

TEST(WorkQueueMetrics, DoneWithoutGetReportsNothing) {
  Fixture f;
  f.queue.add("ns/a");
  f.queue.done("ns/a");  // never handed out: must neither count work nor duplicate the key
  EXPECT_TRUE(f.observer->worked.empty());
  EXPECT_EQ(f.queue.len(), 1u);
  ASSERT_EQ(f.queue.try_get(), "ns/a");
  EXPECT_EQ(f.queue.try_get(), std::nullopt);
}

TEST(WorkQueueMetrics, DelayedAndRateLimitedAddsAreRetries) {
  Fixture f;
  f.queue.add_after("ns/a", 1000);
  f.queue.add_rate_limited("ns/b");
  f.queue.add("ns/c");
  EXPECT_EQ(f.observer->retries, 2);
  EXPECT_EQ(f.queue.snapshot().delayed, 2u);
  EXPECT_EQ(f.queue.snapshot().depth, 1u) << "delayed keys are not in the depth";
}

TEST(WorkQueueBucket, RetriesWaitForTheOverallBucketWhenItIsEmpty) {
  ManualClock clock;
  WorkQueue queue{WorkQueueOptions{.backoff = {}, .now = clock.fn(), .bucket = {.qps = 1, .burst = 1}}};
  queue.add_rate_limited("ns/a");  // the bucket's one token: the 5 ms backoff decides
  queue.add_rate_limited("ns/b");  // no token left: one second at 1 qps, longer than its backoff
  clock.advance(std::chrono::milliseconds(5));
  EXPECT_EQ(queue.try_get(), "ns/a");
  EXPECT_EQ(queue.try_get(), std::nullopt);
  clock.advance(std::chrono::milliseconds(994));
  EXPECT_EQ(queue.try_get(), std::nullopt);
  clock.advance(std::chrono::milliseconds(1));
  EXPECT_EQ(queue.try_get(), "ns/b");
}

TEST(WorkQueueBucket, PlainAddsAndRequeueAfterIgnoreTheBucket) {
  ManualClock clock;
  WorkQueue queue{WorkQueueOptions{.backoff = {}, .now = clock.fn(), .bucket = {.qps = 1, .burst = 1}}};
  queue.add_rate_limited("ns/a");
  for (int i = 0; i < 5; ++i) queue.add("ns/k" + std::to_string(i));
  queue.add_after("ns/late", 20);
  EXPECT_EQ(queue.len(), 5u);
  clock.advance(std::chrono::milliseconds(20));
  EXPECT_EQ(queue.len(), 7u);  // ns/a (5 ms) and ns/late (20 ms): neither waited for a token
}
