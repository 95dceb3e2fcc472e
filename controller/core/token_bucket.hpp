#pragma once
// The one token bucket of the project, with golang.org/x/time/rate's Reserve() semantics, as client-go uses it both
// for a client's request rate (flowcontrol.NewTokenBucketRateLimiter) and for a work queue's overall retry rate
// (workqueue.BucketRateLimiter). RestClient's RequestThrottle and the runtime's WorkQueue wrap it.
#include <chrono>

#include "core/clock.hpp"

namespace cfo {

/// Settings of a TokenBucket. client-go's DefaultTypedControllerRateLimiter uses 10 qps with a burst of 100.
struct TokenBucketOptions {
  double qps = 10.0;  ///< tokens added per second; <= 0 or not finite turns the bucket off (every reservation free)
  int burst = 100;    ///< bucket size, raised to 1 when smaller; the bucket starts full
};

/// A bucket of `burst` tokens refilled at `qps` tokens a second up to `burst`. Every reservation takes one token at
/// once, even when none is left (the bucket goes into debt), and says how long the caller must wait until that token
/// will have been refilled: n reservations made together beyond the burst are spread 1/qps apart, in the order they
/// were made. Not thread-safe (its owners hold a lock). Time comes from the caller, so tests drive it with a
/// ManualClock; time going backwards refills nothing.
class TokenBucket {
 public:
  explicit TokenBucket(TokenBucketOptions opts = {});

  /// Takes one token at `now`; returns the wait in seconds, exact (zero when a token was there or the bucket is
  /// off). Callers round it up to their own unit, so that the token is really there after the wait.
  std::chrono::duration<double> reserve(TimePoint now);
  /// Whether the bucket limits anything (qps > 0 and finite).
  bool enabled() const { return enabled_; }
  double qps() const { return opts_.qps; }
  int burst() const { return opts_.burst; }

 private:
  TokenBucketOptions opts_;
  bool enabled_;
  double tokens_;
  TimePoint last_{};
  bool started_ = false;
};

}  // namespace cfo
