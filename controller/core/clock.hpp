#pragma once
// Injectable time, for every layer: whatever waits, backs off, limits a rate or times something reads "now" through a
// NowFn, so that tests drive it with a ManualClock instead of sleeping. Wall-clock time (what is written into objects,
// such as an event's eventTime or a Lease's renewTime) has its own function type.
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

namespace cfo {

/// A point on the monotonic clock (std::chrono::steady_clock).
using TimePoint = std::chrono::steady_clock::time_point;

/// Returns the current monotonic time. Must be callable from any thread.
using NowFn = std::function<TimePoint()>;

/// Returns the current wall-clock time (std::chrono::system_clock). Must be callable from any thread.
using WallNowFn = std::function<std::chrono::system_clock::time_point()>;

/// The real monotonic clock (std::chrono::steady_clock::now).
NowFn steady_now();

/// `now`, or the real monotonic clock when `now` is empty: for options whose empty clock means "the real one".
NowFn steady_now_unless(NowFn now);

/// Milliseconds from `from` to `to` (negative when `to` is earlier), truncated.
int64_t millis_between(TimePoint from, TimePoint to);

/// A clock that moves only when told to. Thread-safe. It starts at TimePoint{} (steady_clock's epoch).
/// Listeners registered with on_advance run after each advance, on the advancing thread and without the clock's
/// lock held; use them to wake waiters, e.g. `clock.on_advance([&] { queue.wake_waiters(); })`.
class ManualClock {
 public:
  /// The current fake time.
  TimePoint now() const;
  /// Moves the clock forward by `delta` (a negative delta does not move it) and then runs the listeners.
  void advance(std::chrono::nanoseconds delta);
  /// A NowFn that reads this clock. The clock must outlive every copy of it.
  NowFn fn() const;
  /// Registers a callback run after every advance().
  void on_advance(std::function<void()> listener);

 private:
  mutable std::mutex mu_;
  TimePoint now_{};
  std::vector<std::function<void()>> listeners_;
};

}  // namespace cfo
