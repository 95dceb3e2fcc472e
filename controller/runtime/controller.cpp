#include "runtime/controller.hpp"

#include "core/log_scope.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <exception>

namespace cfo::runtime {

Controller::Controller(ControllerOptions opts, std::shared_ptr<WorkQueue> queue, ReconcileFn reconcile)
    : opts_(std::move(opts)), queue_(std::move(queue)), reconcile_(std::move(reconcile)) {
  if (!opts_.now) opts_.now = steady_now();
}

Controller::~Controller() { stop(); }

Result<void> Controller::start() {
  if (!queue_ || !reconcile_) return fail("controller " + opts_.name + ": queue and reconcile function are required");
  if (opts_.max_concurrent_reconciles < 1)
    return fail("controller " + opts_.name + ": max_concurrent_reconciles must be at least 1");
  std::lock_guard lk(lifecycle_mu_);
  if (stopped_) return fail("controller " + opts_.name + ": already stopped");
  if (started_) return fail("controller " + opts_.name + ": already started");
  started_ = true;
  for (int i = 0; i < opts_.max_concurrent_reconciles; ++i)
    workers_.emplace_back([this] {
      while (process_next()) {
      }
    });
  spdlog::info("controller {}: started {} worker(s)", opts_.name, opts_.max_concurrent_reconciles);
  return {};
}

void Controller::stop() {
  std::lock_guard lk(lifecycle_mu_);
  stopped_ = true;
  if (queue_) queue_->shut_down();
  for (auto& w : workers_)
    if (w.joinable()) w.join();
  workers_.clear();
}

bool Controller::process_next() {
  std::optional<std::string> key = queue_->get();
  if (!key) return false;
  handle(*key);
  queue_->done(*key);
  if (opts_.on_idle && queue_->len() == 0) opts_.on_idle();
  return true;
}

void Controller::handle(const std::string& key) {
  ReconcileResult result;
  bool panicked = false;
  ++active_;
  const TimePoint started = opts_.now();
  // Every line logged during the reconcile carries the key (a field in JSON logs, a prefix in text).
  LogScope scope(key, opts_.name);
  try {
    result = reconcile_(key);
  } catch (const std::exception& e) {
    panicked = true;
    result = ReconcileResult::failed(std::string("reconcile threw: ") + e.what());
  } catch (...) {
    panicked = true;
    result = ReconcileResult::failed("reconcile threw a non-standard exception");
  }
  const double seconds = std::max(0.0, std::chrono::duration<double>(opts_.now() - started).count());
  --active_;
  if (panicked) ++exceptions_;
  // A requeue without a positive delay means nothing (controller-runtime only acts on RequeueAfter > 0).
  if (result.kind == ReconcileResult::Kind::RequeueAfter && result.requeue_after_ms <= 0)
    result.kind = ReconcileResult::Kind::Ok;

  switch (result.kind) {
    case ReconcileResult::Kind::Error:
      ++error_;
      queue_->add_rate_limited(key);
      spdlog::error("controller {}: reconcile {} failed (attempt {}): {}", opts_.name, key, queue_->num_requeues(key),
                    result.error);
      break;
    case ReconcileResult::Kind::RequeueAfter:
      ++requeue_after_;
      queue_->forget(key);
      queue_->add_after(key, result.requeue_after_ms);
      spdlog::debug("controller {}: reconcile {} requeued after {} ms", opts_.name, key, result.requeue_after_ms);
      break;
    case ReconcileResult::Kind::Ok:
      ++success_;
      queue_->forget(key);
      spdlog::debug("controller {}: reconciled {}", opts_.name, key);
      break;
  }
  if (opts_.observer) {
    const ReconcileOutcome outcome = result.kind == ReconcileResult::Kind::Error ? ReconcileOutcome::Error
                                     : result.kind == ReconcileResult::Kind::RequeueAfter
                                         ? ReconcileOutcome::RequeueAfter
                                         : ReconcileOutcome::Success;
    opts_.observer->on_reconcile(outcome, seconds, panicked);
  }
}

ControllerStats Controller::stats() const {
  return {success_.load(), requeue_after_.load(), error_.load(), exceptions_.load()};
}

KeyMapper own_key() {
  return [](const json::Value& object) -> std::optional<std::string> {
    std::string key = key_of(object);
    if (key.empty()) return std::nullopt;
    return key;
  };
}

KeyMapper owner_key(std::string api_group, std::string kind) {
  return [api_group = std::move(api_group), kind = std::move(kind)](const json::Value& object) {
    return controller_owner_key(object, api_group, kind);
  };
}

void enqueue_from(Informer& informer, std::shared_ptr<WorkQueue> queue, KeyMapper mapper, UpdatePredicate on_update) {
  enqueue_all_from(
      informer, std::move(queue),
      [mapper = std::move(mapper)](const json::Value& object) {
        std::vector<std::string> keys;
        if (auto key = mapper(object)) keys.push_back(std::move(*key));
        return keys;
      },
      std::move(on_update));
}

void enqueue_all_from(Informer& informer, std::shared_ptr<WorkQueue> queue, KeysMapper mapper,
                      UpdatePredicate on_update) {
  auto enqueue = [queue = std::move(queue), mapper = std::move(mapper)](const ObjectPtr& object) {
    if (!object) return;
    for (auto& key : mapper(*object)) queue->add(key);
  };
  informer.on_add(enqueue);
  informer.on_update(
      [enqueue, on_update = std::move(on_update)](const ObjectPtr& old_object, const ObjectPtr& new_object) {
        if (on_update && old_object && new_object && !on_update(*old_object, *new_object)) return;
        enqueue(old_object);
        enqueue(new_object);
      });
  informer.on_delete(enqueue);
}

}  // namespace cfo::runtime
