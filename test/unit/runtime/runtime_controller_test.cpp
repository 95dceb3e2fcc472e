#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "core/clock.hpp"
#include "runtime/controller.hpp"
#include "runtime/work_queue.hpp"

using namespace cfo::runtime;
using cfo::ManualClock;
using namespace std::chrono_literals;

namespace {

/// A controller over a real WorkQueue on a manual clock, driven step by step with process_next().
struct Harness {
  ManualClock clock;
  std::shared_ptr<WorkQueue> queue = std::make_shared<WorkQueue>(WorkQueueOptions{.backoff = {}, .now = clock.fn()});
  std::map<std::string, int> calls;
  ReconcileResult next_result;
  bool throw_next = false;
  Controller controller{ControllerOptions{}, queue, [this](const std::string& key) {
                          ++calls[key];
                          if (throw_next) throw std::runtime_error("boom");
                          return next_result;
                        }};

  /// Processes the key that is ready now; fails the test when none is.
  void step() {
    ASSERT_EQ(queue->len(), 1u) << "expected exactly one ready key";
    ASSERT_TRUE(controller.process_next());
  }
};

}  // namespace

TEST(Controller, ErrorRequeuesWithGrowingBackoff) {
  Harness h;
  h.next_result = ReconcileResult::failed("apiserver unavailable");
  h.queue->add("ns/a");
  h.step();
  EXPECT_EQ(h.calls["ns/a"], 1);
  EXPECT_EQ(h.queue->num_requeues("ns/a"), 1);
  EXPECT_EQ(h.queue->len(), 0u);
  h.clock.advance(std::chrono::milliseconds(4));
  EXPECT_EQ(h.queue->len(), 0u);
  h.clock.advance(std::chrono::milliseconds(1));  // 5 ms
  h.step();
  EXPECT_EQ(h.calls["ns/a"], 2);
  h.clock.advance(std::chrono::milliseconds(9));
  EXPECT_EQ(h.queue->len(), 0u);
  h.clock.advance(std::chrono::milliseconds(1));  // 10 ms
  EXPECT_EQ(h.queue->len(), 1u);
  EXPECT_EQ(h.controller.stats().error, 2u);
}

TEST(Controller, SuccessForgetsTheFailures) {
  Harness h;
  h.next_result = ReconcileResult::failed("x");
  h.queue->add("ns/a");
  h.step();
  h.clock.advance(std::chrono::milliseconds(5));
  h.next_result = ReconcileResult::ok();
  h.step();
  EXPECT_EQ(h.queue->num_requeues("ns/a"), 0);
  EXPECT_EQ(h.queue->len(), 0u);
  EXPECT_EQ(h.queue->num_delayed(), 0u);
  EXPECT_EQ(h.controller.stats().success, 1u);
}

TEST(Controller, RequeueAfterForgetsAndWaitsTheDelay) {
  Harness h;
  h.next_result = ReconcileResult::failed("x");
  h.queue->add("ns/a");
  h.step();
  h.clock.advance(std::chrono::milliseconds(5));
  h.next_result = ReconcileResult::requeue_after(2000);
  h.step();
  EXPECT_EQ(h.queue->num_requeues("ns/a"), 0);
  h.clock.advance(std::chrono::milliseconds(1999));
  EXPECT_EQ(h.queue->len(), 0u);
  h.clock.advance(std::chrono::milliseconds(1));
  EXPECT_EQ(h.queue->len(), 1u);
  EXPECT_EQ(h.controller.stats().requeue_after, 1u);
}

TEST(Controller, NonPositiveRequeueAfterIsASuccess) {
  Harness h;
  h.next_result = ReconcileResult::requeue_after(0);
  h.queue->add("ns/a");
  h.step();
  EXPECT_EQ(h.queue->len(), 0u);
  EXPECT_EQ(h.queue->num_delayed(), 0u);
  EXPECT_EQ(h.controller.stats().success, 1u);
}

TEST(Controller, ExceptionIsCaughtAndHandledAsAnError) {
  Harness h;
  h.throw_next = true;
  h.queue->add("ns/a");
  h.step();
  EXPECT_EQ(h.queue->num_requeues("ns/a"), 1);
  EXPECT_EQ(h.controller.stats().exceptions, 1u);
  EXPECT_EQ(h.controller.stats().error, 1u);
  h.clock.advance(std::chrono::milliseconds(5));
  h.throw_next = false;
  h.next_result = ReconcileResult::ok();
  h.step();
  EXPECT_EQ(h.calls["ns/a"], 2);
}

TEST(Controller, AddDuringReconcileRunsOnceMoreAfterIt) {
  ManualClock clock;
  auto queue = std::make_shared<WorkQueue>(WorkQueueOptions{.backoff = {}, .now = clock.fn()});
  int calls = 0;
  Controller c({}, queue, [&](const std::string& key) {
    if (++calls == 1) {
      queue->add(key);  // the object changed while we reconciled it
      queue->add(key);
    }
    return ReconcileResult::ok();
  });
  queue->add("ns/a");
  ASSERT_TRUE(c.process_next());
  EXPECT_EQ(queue->len(), 1u);
  ASSERT_TRUE(c.process_next());
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(queue->len(), 0u);
}

TEST(Controller, WorkersReconcileEveryKeyAndStopJoins) {
  auto queue = std::make_shared<WorkQueue>();
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, int> seen;
  Controller c(ControllerOptions{.name = "test", .max_concurrent_reconciles = 3}, queue, [&](const std::string& key) {
    std::lock_guard lk(mu);
    ++seen[key];
    cv.notify_all();
    return ReconcileResult::ok();
  });
  ASSERT_TRUE(c.start().has_value());
  EXPECT_FALSE(c.start().has_value());  // only once
  for (int i = 0; i < 10; ++i) queue->add("ns/k" + std::to_string(i));
  {
    std::unique_lock lk(mu);
    ASSERT_TRUE(cv.wait_for(lk, 10s, [&] { return seen.size() == 10; }));
  }
  c.stop();
  EXPECT_TRUE(queue->shutting_down());
  EXPECT_FALSE(c.process_next());
}

TEST(Controller, RejectsZeroWorkers) {
  Controller c(ControllerOptions{.name = "test", .max_concurrent_reconciles = 0}, std::make_shared<WorkQueue>(),
               [](const std::string&) { return ReconcileResult::ok(); });
  EXPECT_FALSE(c.start().has_value());
}
