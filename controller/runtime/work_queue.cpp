#include "runtime/work_queue.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace cfo::runtime {

namespace {
double seconds_between(TimePoint from, TimePoint to) {
  return from < to ? std::chrono::duration<double>(to - from).count() : 0.0;
}
}  // namespace

WorkQueue::WorkQueue(WorkQueueOptions opts)
    : now_(opts.now ? std::move(opts.now) : steady_now()),
      backoff_(opts.backoff),
      bucket_(opts.bucket),
      observer_(std::move(opts.observer)) {}

void WorkQueue::add(const std::string& key) {
  std::lock_guard lk(mu_);
  add_locked(key);
}

void WorkQueue::add_locked(const std::string& key) {
  if (shutting_down_) return;
  if (!dirty_.insert(key).second) return;  // already waiting (or already marked for another round)
  if (observer_) {
    observer_->on_add();
    added_at_.emplace(key, now_());
  }
  if (processing_.contains(key)) return;  // done() re-queues it
  queue_.push_back(key);
  cv_.notify_one();
}

void WorkQueue::add_after(const std::string& key, int64_t delay_ms) {
  std::lock_guard lk(mu_);
  if (shutting_down_) return;
  if (observer_) observer_->on_retry();
  if (delay_ms <= 0) {
    add_locked(key);
    return;
  }
  add_after_locked(key, now_() + std::chrono::milliseconds(delay_ms));
}

void WorkQueue::add_after_locked(const std::string& key, TimePoint ready_at) {
  auto it = delayed_ready_at_.find(key);
  if (it != delayed_ready_at_.end()) {
    if (it->second <= ready_at) return;  // the earlier deadline wins
    delayed_.erase({it->second, key});
    it->second = ready_at;
  } else {
    delayed_ready_at_.emplace(key, ready_at);
  }
  delayed_.emplace(ready_at, key);
  // A getter may be sleeping until a later deadline (or indefinitely): let it recompute.
  cv_.notify_all();
}

void WorkQueue::add_rate_limited(const std::string& key) {
  std::lock_guard lk(mu_);
  if (shutting_down_) return;
  if (observer_) observer_->on_retry();
  const int64_t backoff_ms = backoff_.when_ms(key);
  // The bucket's exact wait, rounded up to whole milliseconds like the backoff.
  const int64_t bucket_ms = static_cast<int64_t>(std::ceil(bucket_.reserve(now_()).count() * 1000.0));
  const int64_t delay_ms = std::max(backoff_ms, bucket_ms);
  if (delay_ms <= 0) {
    add_locked(key);
    return;
  }
  add_after_locked(key, now_() + std::chrono::milliseconds(delay_ms));
}

void WorkQueue::forget(const std::string& key) {
  std::lock_guard lk(mu_);
  backoff_.forget(key);
}

int WorkQueue::num_requeues(const std::string& key) const {
  std::lock_guard lk(mu_);
  return backoff_.num_requeues(key);
}

void WorkQueue::promote_ready_locked(TimePoint now) {
  while (!delayed_.empty() && delayed_.begin()->first <= now) {
    std::string key = delayed_.begin()->second;
    delayed_.erase(delayed_.begin());
    delayed_ready_at_.erase(key);
    add_locked(key);
  }
}

std::optional<std::string> WorkQueue::pop_locked() {
  if (queue_.empty()) return std::nullopt;
  std::string key = std::move(queue_.front());
  queue_.pop_front();
  processing_.insert(key);
  dirty_.erase(key);
  if (observer_) {
    const TimePoint now = now_();
    auto it = added_at_.find(key);
    observer_->on_get(it == added_at_.end() ? 0.0 : seconds_between(it->second, now));
    if (it != added_at_.end()) added_at_.erase(it);
    started_at_[key] = now;
  }
  return key;
}

std::optional<std::string> WorkQueue::get() {
  std::unique_lock lk(mu_);
  for (;;) {
    if (shutting_down_) return std::nullopt;
    const TimePoint now = now_();
    promote_ready_locked(now);
    if (auto key = pop_locked()) return key;
    if (delayed_.empty()) {
      cv_.wait(lk);
    } else {
      // Sleep (in real time) for as long as the injected clock says the earliest deadline is away; with a fake
      // clock, wake_waiters() after an advance cuts this short.
      auto wait = delayed_.begin()->first - now;
      cv_.wait_for(lk, wait);
    }
  }
}

std::optional<std::string> WorkQueue::try_get() {
  std::lock_guard lk(mu_);
  if (shutting_down_) return std::nullopt;
  promote_ready_locked(now_());
  return pop_locked();
}

void WorkQueue::done(const std::string& key) {
  std::lock_guard lk(mu_);
  if (processing_.erase(key) == 0) return;  // not handed out (or done twice): nothing to finish
  if (observer_) {
    if (auto it = started_at_.find(key); it != started_at_.end()) {
      observer_->on_done(seconds_between(it->second, now_()));
      started_at_.erase(it);
    }
  }
  if (dirty_.contains(key) && !shutting_down_) {
    queue_.push_back(key);
    cv_.notify_one();
  }
}

void WorkQueue::shut_down() {
  std::lock_guard lk(mu_);
  shutting_down_ = true;
  cv_.notify_all();
}

bool WorkQueue::shutting_down() const {
  std::lock_guard lk(mu_);
  return shutting_down_;
}

void WorkQueue::wake_waiters() {
  std::lock_guard lk(mu_);
  cv_.notify_all();
}

std::size_t WorkQueue::len() const {
  std::lock_guard lk(mu_);
  // Count delayed keys whose deadline has passed as ready, without mutating: len() is an observer.
  std::size_t ready = queue_.size();
  const TimePoint now = now_();
  for (const auto& [at, key] : delayed_) {
    if (at > now) break;
    if (!dirty_.contains(key) && !processing_.contains(key)) ++ready;
  }
  return ready;
}

std::size_t WorkQueue::num_delayed() const {
  std::lock_guard lk(mu_);
  return delayed_.size();
}

WorkQueueSnapshot WorkQueue::snapshot() const {
  std::lock_guard lk(mu_);
  WorkQueueSnapshot s;
  s.depth = dirty_.size();
  s.delayed = delayed_.size();
  s.processing = processing_.size();
  if (!started_at_.empty()) {
    const TimePoint now = now_();
    for (const auto& [key, start] : started_at_) {
      const double running = seconds_between(start, now);
      s.unfinished_work_seconds += running;
      s.longest_running_seconds = std::max(s.longest_running_seconds, running);
    }
  }
  return s;
}

}  // namespace cfo::runtime
