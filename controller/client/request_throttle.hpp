#pragma once
// Client-side rate limiting of apiserver requests, as client-go's flowcontrol.NewTokenBucketRateLimiter does it:
// the project's TokenBucket (core/token_bucket.hpp) behind a lock and a clock.
#include <chrono>
#include <mutex>

#include "core/clock.hpp"
#include "core/token_bucket.hpp"

namespace cfo::client {

/// RestClient's request rate: a TokenBucket of `burst` requests refilled at `qps` a second, shared by every
/// thread. A request that finds no token still takes one and is told how long to wait, so requests made at the
/// same time are spread 1/qps apart in the order they asked. Thread-safe.
class RequestThrottle {
 public:
  /// `qps`: requests per second, > 0 and finite (other values are treated as 1); `burst`: bucket size, raised to 1
  /// when smaller; `now`: the clock, steady_clock when empty.
  RequestThrottle(double qps, int burst, NowFn now = {});

  /// Takes one token and returns how long the caller must wait before sending its request (zero when a token was
  /// in the bucket), rounded up to the nanosecond.
  std::chrono::nanoseconds reserve();

  double qps() const { return bucket_.qps(); }
  int burst() const { return bucket_.burst(); }

 private:
  NowFn now_;
  std::mutex mu_;
  TokenBucket bucket_;
};

}  // namespace cfo::client
