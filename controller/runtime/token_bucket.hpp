#pragma once
// An overall token bucket for retries of the work queue (client-go BucketRateLimiter over golang.org/x/time/rate).
#include <cstdint>

#include "runtime/clock.hpp"

namespace cfo::runtime {

/// Settings of a TokenBucket. client-go's DefaultTypedControllerRateLimiter uses 10 qps with a burst of 100.
/// qps <= 0 turns the bucket off (every reservation is free).
struct TokenBucketOptions {
  double qps = 10.0;  ///< tokens added per second
  int burst = 100;    ///< bucket size; the bucket starts full
};

/// A token bucket with golang.org/x/time/rate Reserve() semantics: every reservation takes one token at once,
/// even when none is left; the caller waits for the returned delay until the (negative) balance would have been
/// refilled. So n reservations made together beyond the burst are spread 1/qps apart. Not thread-safe (the work
/// queue calls it under its lock). Time comes from the caller, so tests drive it with a ManualClock.
class TokenBucket {
 public:
  explicit TokenBucket(TokenBucketOptions opts = {});

  /// Takes one token at `now` and returns how long the caller must wait for it, in ms (0 when a token was there).
  int64_t reserve_ms(TimePoint now);
  /// Whether the bucket limits anything (qps > 0).
  bool enabled() const { return opts_.qps > 0; }

 private:
  TokenBucketOptions opts_;
  double tokens_;
  TimePoint last_{};
  bool started_ = false;
};

}  // namespace cfo::runtime
