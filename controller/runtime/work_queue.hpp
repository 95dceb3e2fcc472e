#pragma once
// A rate-limited, delaying work queue of string keys ("namespace/name"), with client-go workqueue semantics.
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "core/clock.hpp"
#include "runtime/observers.hpp"
#include "runtime/rate_limiter.hpp"
#include "core/token_bucket.hpp"

namespace cfo::runtime {

/// Options of a WorkQueue. `now` empty means the real steady clock.
struct WorkQueueOptions {
  ItemBackoffOptions backoff;  ///< per-key failure backoff (client-go defaults: 5 ms .. 1000 s)
  NowFn now;                   ///< clock used for deadlines and for the durations reported to `observer`
  TokenBucketOptions bucket;   ///< overall limit on retries (client-go default 10 qps, burst 100; qps 0 = off)
  std::shared_ptr<WorkQueueObserver> observer;  ///< metrics hooks; null = none (no clock reads for them)
};

/// What a WorkQueue holds at one moment, for gauges read at scrape time (client-go workqueue metrics).
struct WorkQueueSnapshot {
  std::size_t depth = 0;               ///< keys added and not yet handed out (workqueue_depth)
  std::size_t delayed = 0;             ///< keys waiting for a deadline (not in depth, as client-go)
  std::size_t processing = 0;          ///< keys handed out and not yet done
  double unfinished_work_seconds = 0;  ///< sum of how long each key in processing has run so far
  double longest_running_seconds = 0;  ///< the longest of those (workqueue_longest_running_processor_seconds)
};

/// client-go workqueue (queue.go + delaying_queue.go + rate_limiting_queue.go) in one class.
///
/// - Coalescing: a key that is already waiting is not queued twice. A key being processed (handed out by get()
///   and not yet done()) is only marked dirty by add(); done() re-queues it once. So a key is never handed to
///   two workers at the same time, and any number of adds during processing cause exactly one more round.
/// - Retries: add_rate_limited(key) waits the longer of the key's exponential backoff and the overall token bucket
///   (client-go DefaultTypedControllerRateLimiter: MaxOf(ItemExponentialFailure, Bucket)).
/// - Delays: add_after(key, delay_ms) queues the key once the delay has passed on the injected clock. When a key
///   is already waiting for a deadline, the earlier deadline wins (client-go delaying queue).
/// - Shutdown: shut_down() wakes every getter; from then on get() returns std::nullopt immediately, even if keys
///   are still waiting (they are dropped: reconciles are level-triggered, the next process start lists
///   everything again). add*() after shut_down() are ignored; done() still works.
///
/// Thread-safe. With a ManualClock, call wake_waiters() after advancing it so that blocked getters re-check the
/// deadlines (ManualClock::on_advance can do that automatically).
class WorkQueue {
 public:
  explicit WorkQueue(WorkQueueOptions opts = {});
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  /// Queues `key` unless it is already waiting; marks it dirty if it is being processed.
  void add(const std::string& key);
  /// Queues `key` after `delay_ms` (<= 0 means now, as add()).
  void add_after(const std::string& key, int64_t delay_ms);
  /// Records a failure of `key` and queues it after its backoff: base_delay_ms * 2^failures, capped.
  void add_rate_limited(const std::string& key);
  /// Clears the failure count of `key` (its next add_rate_limited waits base_delay_ms again).
  void forget(const std::string& key);
  /// Failures recorded for `key` since the last forget().
  int num_requeues(const std::string& key) const;

  /// Blocks until a key is ready and returns it, marking it as being processed; the caller must call done(key).
  /// Returns std::nullopt once shut_down() was called.
  std::optional<std::string> get();
  /// As get() but never blocks: std::nullopt when no key is ready now (or after shut_down()).
  std::optional<std::string> try_get();
  /// Marks `key` as processed; if it was added meanwhile it is queued again. A key that was not handed out by
  /// get()/try_get() (or is done twice) is ignored.
  void done(const std::string& key);

  /// Stops the queue and wakes every blocked get().
  void shut_down();
  /// True once shut_down() was called.
  bool shutting_down() const;
  /// Wakes blocked getters so that they re-read the clock (needed only with a fake clock).
  void wake_waiters();

  /// Keys ready to be handed out now (not counting delayed keys or keys being processed).
  std::size_t len() const;
  /// Keys waiting for a deadline (add_after / add_rate_limited).
  std::size_t num_delayed() const;
  /// Depth, delayed and processing counts, and how long the keys in processing have run (read on the clock).
  WorkQueueSnapshot snapshot() const;

 private:
  void add_locked(const std::string& key);
  void add_after_locked(const std::string& key, TimePoint ready_at);
  void promote_ready_locked(TimePoint now);
  std::optional<std::string> pop_locked();

  NowFn now_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool shutting_down_ = false;
  std::deque<std::string> queue_;                        // ready keys, FIFO
  std::unordered_set<std::string> dirty_;                // keys that need processing (queued or to re-queue on done)
  std::unordered_set<std::string> processing_;           // keys handed out and not yet done
  std::set<std::pair<TimePoint, std::string>> delayed_;  // (ready_at, key), earliest first
  std::unordered_map<std::string, TimePoint> delayed_ready_at_;  // key -> its entry in delayed_
  ItemExponentialBackoff backoff_;
  TokenBucket bucket_;
  std::shared_ptr<WorkQueueObserver> observer_;
  // Only kept when there is an observer: when each dirty key was added, and when each key in processing started.
  std::unordered_map<std::string, TimePoint> added_at_;
  std::unordered_map<std::string, TimePoint> started_at_;
};

}  // namespace cfo::runtime
