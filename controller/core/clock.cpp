#include "core/clock.hpp"

namespace cfo {

NowFn steady_now() {
  return [] { return std::chrono::steady_clock::now(); };
}

NowFn steady_now_unless(NowFn now) { return now ? std::move(now) : steady_now(); }

int64_t millis_between(TimePoint from, TimePoint to) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(to - from).count();
}

TimePoint ManualClock::now() const {
  std::lock_guard lk(mu_);
  return now_;
}

void ManualClock::advance(std::chrono::nanoseconds delta) {
  std::vector<std::function<void()>> listeners;
  {
    std::lock_guard lk(mu_);
    if (delta > std::chrono::nanoseconds::zero()) now_ += delta;
    listeners = listeners_;
  }
  for (auto& l : listeners) l();
}

NowFn ManualClock::fn() const {
  return [this] { return now(); };
}

void ManualClock::on_advance(std::function<void()> listener) {
  std::lock_guard lk(mu_);
  listeners_.push_back(std::move(listener));
}

}  // namespace cfo
