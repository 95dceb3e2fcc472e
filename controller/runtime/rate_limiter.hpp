#pragma once
// Per-item exponential failure backoff for work-queue keys.
#include <cstdint>
#include <string>
#include <unordered_map>

namespace cfo::runtime {

/// Defaults of client-go's workqueue.DefaultTypedControllerRateLimiter exponential part
/// (NewTypedItemExponentialFailureRateLimiter(5*time.Millisecond, 1000*time.Second)), which controller-runtime
/// uses alone with its default priority queue.
struct ItemBackoffOptions {
  int64_t base_delay_ms = 5;
  int64_t max_delay_ms = int64_t{1000} * 1000;
};

/// client-go ItemExponentialFailureRateLimiter: the n-th failure of a key (n counted from 0) waits
/// base_delay_ms * 2^n, capped at max_delay_ms (also when the product would overflow); forget() resets the count.
/// Not thread-safe: WorkQueue calls it under its own lock.
class ItemExponentialBackoff {
 public:
  explicit ItemExponentialBackoff(ItemBackoffOptions opts = {});

  /// Records one more failure of `key` and returns the delay in ms before it should be retried.
  int64_t when_ms(const std::string& key);
  /// Forgets the failures of `key` (after a success).
  void forget(const std::string& key);
  /// How many failures are recorded for `key` (0 when unknown).
  int num_requeues(const std::string& key) const;

 private:
  ItemBackoffOptions opts_;
  std::unordered_map<std::string, int> failures_;
};

}  // namespace cfo::runtime
