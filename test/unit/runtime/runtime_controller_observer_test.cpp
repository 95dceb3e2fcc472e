// What the controller reports to its observer (controller_runtime_* metrics).
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <vector>

#include "core/clock.hpp"
#include "runtime/controller.hpp"

using namespace cfo::runtime;
using cfo::ManualClock;

namespace {

struct Call {
  ReconcileOutcome outcome;
  double seconds;
  bool panicked;
};

struct RecordingObserver : ControllerObserver {
  std::vector<Call> calls;
  void on_reconcile(ReconcileOutcome outcome, double seconds, bool panicked) override {
    calls.push_back({outcome, seconds, panicked});
  }
};

}  // namespace

TEST(ControllerObserver, EveryOutcomeIsReportedWithItsDuration) {
  ManualClock clock;
  auto observer = std::make_shared<RecordingObserver>();
  auto queue = std::make_shared<WorkQueue>(WorkQueueOptions{.backoff = {}, .now = clock.fn()});
  int step = 0;
  int active_inside = -1;
  Controller* self = nullptr;
  Controller c(
      ControllerOptions{.name = "test", .max_concurrent_reconciles = 2, .observer = observer, .now = clock.fn()}, queue,
      [&](const std::string&) -> ReconcileResult {
        active_inside = self->active_workers();
        clock.advance(std::chrono::milliseconds(40));
        switch (step++) {
          case 0:
            return ReconcileResult::ok();
          case 1:
            return ReconcileResult::requeue_after(1000);
          case 2:
            return ReconcileResult::failed("boom");
          default:
            throw std::runtime_error("bad");
        }
      });
  self = &c;
  EXPECT_EQ(c.max_concurrent_reconciles(), 2);
  for (int i = 0; i < 4; ++i) {
    queue->add("ns/k" + std::to_string(i));
    ASSERT_TRUE(c.process_next());
  }
  EXPECT_EQ(active_inside, 1);
  EXPECT_EQ(c.active_workers(), 0);
  ASSERT_EQ(observer->calls.size(), 4u);
  EXPECT_EQ(observer->calls[0].outcome, ReconcileOutcome::Success);
  EXPECT_EQ(observer->calls[1].outcome, ReconcileOutcome::RequeueAfter);
  EXPECT_EQ(observer->calls[2].outcome, ReconcileOutcome::Error);
  EXPECT_FALSE(observer->calls[2].panicked);
  EXPECT_EQ(observer->calls[3].outcome, ReconcileOutcome::Error);
  EXPECT_TRUE(observer->calls[3].panicked);
  for (const auto& call : observer->calls) EXPECT_DOUBLE_EQ(call.seconds, 0.040);
}

TEST(ControllerObserver, StartAfterStopIsRefused) {
  auto queue = std::make_shared<WorkQueue>();
  Controller c(ControllerOptions{}, queue, [](const std::string&) { return ReconcileResult::ok(); });
  c.stop();
  auto r = c.start();
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("stopped"), std::string::npos);
}
