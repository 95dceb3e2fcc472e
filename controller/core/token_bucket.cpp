#include "core/token_bucket.hpp"

#include <algorithm>
#include <cmath>

namespace cfo {

TokenBucket::TokenBucket(TokenBucketOptions opts)
    : opts_{opts.qps, std::max(opts.burst, 1)},
      enabled_(std::isfinite(opts.qps) && opts.qps > 0),
      tokens_(static_cast<double>(opts_.burst)) {}

std::chrono::duration<double> TokenBucket::reserve(TimePoint now) {
  if (!enabled_) return std::chrono::duration<double>::zero();
  // The bucket is full until the first reservation, so the refill is counted from there.
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
  if (tokens_ >= 0) return std::chrono::duration<double>::zero();
  // The debt is paid back at qps tokens per second.
  return std::chrono::duration<double>(-tokens_ / opts_.qps);
}

}  // namespace cfo
