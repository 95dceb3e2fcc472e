#pragma once
// Injectable time for the runtime: every component that waits or backs off reads "now" through a NowFn, so tests
// can drive it with a ManualClock instead of sleeping.
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

namespace cfo::runtime {

/// A point on a monotonic clock (std::chrono::steady_clock's representation).
using TimePoint = std::chrono::steady_clock::time_point;

/// Returns the current monotonic time. Must be callable from any thread.
using NowFn = std::function<TimePoint()>;

/// The real monotonic clock (std::chrono::steady_clock::now).
NowFn steady_now();

/// Milliseconds from `from` to `to` (negative when `to` is earlier), truncated.
int64_t millis_between(TimePoint from, TimePoint to);

/// A clock that only moves when told to. Thread-safe. Starts at TimePoint{} (the epoch of steady_clock).
/// Listeners registered with on_advance run (on the advancing thread, without the clock's lock held) after each
/// advance; use them to wake waiters, e.g. `clock.on_advance([&] { queue.wake_waiters(); })`.
class ManualClock {
 public:
  /// The current fake time.
  TimePoint now() const;
  /// Moves the clock forward by `delta_ms` (>= 0) and runs the listeners.
  void advance_ms(int64_t delta_ms);
  /// A NowFn reading this clock. The clock must outlive every copy of it.
  NowFn fn() const;
  /// Registers a callback run after every advance_ms().
  void on_advance(std::function<void()> listener);

 private:
  mutable std::mutex mu_;
  TimePoint now_{};
  std::vector<std::function<void()>> listeners_;
};

}  // namespace cfo::runtime
