#include "client/token_bucket.hpp"

#include <algorithm>
#include <cmath>

namespace cfo::client {

TokenBucket::TokenBucket(double qps, int burst, SteadyNowFn now)
    : qps_(std::isfinite(qps) && qps > 0 ? qps : 1.0),
      burst_(static_cast<double>(std::max(burst, 1))),
      now_(now ? std::move(now) : SteadyNowFn([] { return std::chrono::steady_clock::now(); })),
      tokens_(burst_),
      last_(now_()) {}

std::chrono::nanoseconds TokenBucket::reserve() {
  std::lock_guard lock(mu_);
  const auto now = now_();
  if (now > last_) {
    const double elapsed_s = std::chrono::duration<double>(now - last_).count();
    tokens_ = std::min(burst_, tokens_ + elapsed_s * qps_);
    last_ = now;
  }
  tokens_ -= 1.0;
  if (tokens_ >= 0) return std::chrono::nanoseconds::zero();
  // The debt is paid back at qps tokens per second; round up so that the token is really there after the wait.
  return std::chrono::nanoseconds(static_cast<int64_t>(std::ceil(-tokens_ / qps_ * 1e9)));
}

}  // namespace cfo::client
