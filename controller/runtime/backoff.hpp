#pragma once
// Jittered exponential backoff with a reset after a quiet period, for reconnecting watches.
#include <cstdint>
#include <optional>

#include "core/clock.hpp"
#include "runtime/random.hpp"

namespace cfo::runtime {

/// client-go reflector defaults (tools/cache/reflector.go: defaultBackoffInit 800 ms, defaultBackoffMax 30 s,
/// factor 2.0, jitter 1.0, reset after 2 min); kube-rs watcher DefaultBackoff uses the same numbers.
struct BackoffOptions {
  int64_t initial_ms = 800;
  int64_t max_ms = int64_t{30} * 1000;
  double factor = 2.0;
  double jitter = 1.0;  ///< each delay is base * (1 + jitter * u), u uniform in [0, 1)
  int64_t reset_after_ms = int64_t{120} * 1000;
};

/// client-go wait.NewExponentialBackoffManager: each next_delay_ms() returns the current base delay plus jitter
/// and then multiplies the base by `factor`, capped at max_ms (so with jitter 1.0 the delays settle in
/// [30 s, 60 s)). When more than reset_after_ms passed since the previous call (the watch was healthy that long),
/// the base starts again at initial_ms. Not thread-safe.
class Backoff {
 public:
  Backoff(BackoffOptions opts, NowFn now, UniformFn uniform);

  /// The delay in ms to wait before the next attempt.
  int64_t next_delay_ms();
  /// Starts again from initial_ms.
  void reset();
  /// The un-jittered delay the next call would start from, in ms.
  int64_t current_base_ms() const { return base_ms_; }

 private:
  BackoffOptions opts_;
  NowFn now_;
  UniformFn uniform_;
  int64_t base_ms_;
  std::optional<TimePoint> last_call_;
};

}  // namespace cfo::runtime
