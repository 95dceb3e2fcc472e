#include "runtime/rate_limiter.hpp"

#include <algorithm>

namespace cfo::runtime {

ItemExponentialBackoff::ItemExponentialBackoff(ItemBackoffOptions opts) : opts_(opts) {}

int64_t ItemExponentialBackoff::when_ms(const std::string& key) {
  int exponent = failures_[key]++;
  const int64_t base = std::max<int64_t>(opts_.base_delay_ms, 0);
  const int64_t cap = std::max<int64_t>(opts_.max_delay_ms, 0);
  if (base == 0) return 0;
  // Double step by step and stop at the cap, which also keeps the product from overflowing.
  int64_t delay = base;
  for (int i = 0; i < exponent && delay < cap; ++i) {
    if (delay > cap / 2) return cap;
    delay *= 2;
  }
  return std::min(delay, cap);
}

void ItemExponentialBackoff::forget(const std::string& key) { failures_.erase(key); }

int ItemExponentialBackoff::num_requeues(const std::string& key) const {
  auto it = failures_.find(key);
  return it == failures_.end() ? 0 : it->second;
}

}  // namespace cfo::runtime
