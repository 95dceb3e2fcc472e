#pragma once
// Client-side rate limiting of apiserver requests, as client-go's flowcontrol.NewTokenBucketRateLimiter (a
// golang.org/x/time/rate limiter) does it.
#include <chrono>
#include <mutex>

#include "client/wait.hpp"

namespace cfo::client {

/// A bucket of `burst` tokens, full at the start and refilled at `qps` tokens per second up to `burst`. Every
/// request takes one token. When none is left the request still takes one (the bucket goes into debt) and is told
/// how long to wait until that token will have been refilled, so callers that ask at the same time are spread
/// 1/qps apart in the order they asked, as x/time/rate reservations are. Thread-safe.
class TokenBucket {
 public:
  /// `qps`: refill rate in tokens per second, > 0 and finite (other values are treated as 1); `burst`: bucket
  /// size, raised to 1 when smaller; `now`: the clock, steady_clock when empty.
  TokenBucket(double qps, int burst, SteadyNowFn now = {});

  /// Takes one token and returns how long the caller must wait before sending its request (zero when a token was
  /// in the bucket).
  std::chrono::nanoseconds reserve();

  double qps() const { return qps_; }
  int burst() const { return static_cast<int>(burst_); }

 private:
  double qps_;
  double burst_;
  SteadyNowFn now_;
  std::mutex mu_;
  double tokens_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace cfo::client
