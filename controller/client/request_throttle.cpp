#include "client/request_throttle.hpp"

#include <cmath>

namespace cfo::client {

RequestThrottle::RequestThrottle(double qps, int burst, NowFn now)
    : now_(steady_now_unless(std::move(now))),
      bucket_({.qps = std::isfinite(qps) && qps > 0 ? qps : 1.0, .burst = burst}) {}

std::chrono::nanoseconds RequestThrottle::reserve() {
  std::lock_guard lock(mu_);
  const double wait_s = bucket_.reserve(now_()).count();
  if (wait_s <= 0) return std::chrono::nanoseconds::zero();
  return std::chrono::nanoseconds(static_cast<int64_t>(std::ceil(wait_s * 1e9)));
}

}  // namespace cfo::client
