#pragma once
// The project's ManualClock, and a sleep that records its delays and moves that clock instead of waiting:
// RestClient's rate limiter, retries and file reloads run against them without real waits.
#include <chrono>
#include <mutex>
#include <vector>

#include "client/rest_client.hpp"
#include "client/wait.hpp"
#include "core/clock.hpp"

namespace cfo::client::testing {

class FakeTime {
 public:
  /// A NowFn reading this clock. The FakeTime must outlive the client that uses it.
  NowFn now_fn() const { return clock_.fn(); }
  /// A SleepFn that records `delay`, advances the clock by it and reports "not stopped" unless a stop is requested.
  SleepFn sleep_fn() {
    return [this](std::chrono::nanoseconds delay, std::span<StopToken* const> stops) {
      {
        std::lock_guard lock(mu_);
        sleeps_.push_back(delay);
      }
      clock_.advance(delay);  // a negative delay does not move it
      for (StopToken* s : stops)
        if (s && s->stop_requested()) return false;
      return true;
    };
  }
  void advance(std::chrono::nanoseconds d) { clock_.advance(d); }
  /// Every delay passed to sleep_fn so far, in order.
  std::vector<std::chrono::nanoseconds> sleeps() const {
    std::lock_guard lock(mu_);
    return sleeps_;
  }

 private:
  mutable std::mutex mu_;
  ManualClock clock_;
  std::vector<std::chrono::nanoseconds> sleeps_;
};

}  // namespace cfo::client::testing
