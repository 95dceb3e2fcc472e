#pragma once
// Hooks through which the work queue and the controller report what they do, so that a metrics layer (prometheus-cpp
// in controller/metrics/) can count it without the runtime depending on it. Every hook is called on the hot path,
// some under the queue's lock: implementations must be quick, must not block and must not call back into the
// queue or the controller. Counts that are a state rather than an event (queue depth, busy workers, how long the
// current items have been running) are not pushed: read them with WorkQueue::snapshot() and
// Controller::active_workers() when metrics are scraped.
#include <cstdint>

namespace cfo::runtime {

/// Events of a WorkQueue, named after client-go's workqueue metrics they feed.
class WorkQueueObserver {
 public:
  virtual ~WorkQueueObserver() = default;
  /// A key entered the queue (an add that coalesced with a waiting key is not counted): workqueue_adds_total.
  virtual void on_add() = 0;
  /// A delayed or rate-limited add was asked for: workqueue_retries_total.
  virtual void on_retry() = 0;
  /// A key was handed to a worker `queued_seconds` after it was added: workqueue_queue_duration_seconds.
  virtual void on_get(double queued_seconds) = 0;
  /// A worker finished a key after `work_seconds`: workqueue_work_duration_seconds.
  virtual void on_done(double work_seconds) = 0;
};

/// The outcome label of one reconcile (controller-runtime's `result` label of controller_runtime_reconcile_total).
enum class ReconcileOutcome { Success, Error, Requeue, RequeueAfter };

/// Events of a Controller, named after controller-runtime's controller metrics they feed.
class ControllerObserver {
 public:
  virtual ~ControllerObserver() = default;
  /// One reconcile finished with `outcome` after `seconds` (controller_runtime_reconcile_total,
  /// controller_runtime_reconcile_errors_total, controller_runtime_reconcile_time_seconds). `panicked` is true when
  /// the reconcile threw (controller_runtime_reconcile_panics_total); the outcome is then Error.
  virtual void on_reconcile(ReconcileOutcome outcome, double seconds, bool panicked) = 0;
};

}  // namespace cfo::runtime
