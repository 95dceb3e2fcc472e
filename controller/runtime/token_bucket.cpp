#include "runtime/token_bucket.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace cfo::runtime {

TokenBucket::TokenBucket(TokenBucketOptions opts) : opts_(opts), tokens_(std::max(opts.burst, 1)) {
  opts_.burst = std::max(opts_.burst, 1);
}

int64_t TokenBucket::reserve_ms(TimePoint now) {
  if (!enabled()) return 0;
  if (!started_) {
    started_ = true;
    last_ = now;
  }
  if (now > last_) {
    const double elapsed_s = std::chrono::duration<double>(now - last_).count();
    tokens_ = std::min(static_cast<double>(opts_.burst), tokens_ + elapsed_s * opts_.qps);
    last_ = now;
  }
  tokens_ -= 1.0;
  if (tokens_ >= 0) return 0;
  // The deficit is paid back at qps tokens per second; round up so the wait is never too short.
  return static_cast<int64_t>(std::ceil(-tokens_ / opts_.qps * 1000.0));
}

}  // namespace cfo::runtime
