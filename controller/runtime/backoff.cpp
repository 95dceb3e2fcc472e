#include "runtime/backoff.hpp"

#include <algorithm>
#include <cmath>

namespace cfo::runtime {

Backoff::Backoff(BackoffOptions opts, NowFn now, UniformFn uniform)
    : opts_(opts),
      now_(now ? std::move(now) : steady_now()),
      uniform_(uniform ? std::move(uniform) : default_uniform()),
      base_ms_(opts.initial_ms) {}

int64_t Backoff::next_delay_ms() {
  const TimePoint now = now_();
  if (last_call_ && millis_between(*last_call_, now) > opts_.reset_after_ms) base_ms_ = opts_.initial_ms;
  last_call_ = now;
  const int64_t base = base_ms_;
  const double grown = static_cast<double>(base_ms_) * opts_.factor;
  base_ms_ = grown >= static_cast<double>(opts_.max_ms) ? opts_.max_ms : static_cast<int64_t>(grown);
  if (opts_.jitter <= 0) return base;
  return base + static_cast<int64_t>(std::floor(static_cast<double>(base) * opts_.jitter * uniform_()));
}

void Backoff::reset() {
  base_ms_ = opts_.initial_ms;
  last_call_.reset();
}

}  // namespace cfo::runtime
