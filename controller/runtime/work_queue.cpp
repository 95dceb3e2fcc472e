#include "runtime/work_queue.hpp"

#include <chrono>

namespace cfo::runtime {

WorkQueue::WorkQueue(WorkQueueOptions opts)
    : now_(opts.now ? std::move(opts.now) : steady_now()), backoff_(opts.backoff) {}

void WorkQueue::add(const std::string& key) {
  std::lock_guard lk(mu_);
  add_locked(key);
}

void WorkQueue::add_locked(const std::string& key) {
  if (shutting_down_) return;
  if (!dirty_.insert(key).second) return;  // already waiting (or already marked for another round)
  if (processing_.contains(key)) return;   // done() re-queues it
  queue_.push_back(key);
  cv_.notify_one();
}

void WorkQueue::add_after(const std::string& key, int64_t delay_ms) {
  std::lock_guard lk(mu_);
  if (shutting_down_) return;
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
  int64_t delay_ms = backoff_.when_ms(key);
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
  processing_.erase(key);
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

}  // namespace cfo::runtime
