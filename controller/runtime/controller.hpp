#pragma once
// Worker threads that pull keys from a WorkQueue and reconcile them (controller-runtime internal/controller).
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/json.hpp"
#include "core/clock.hpp"
#include "runtime/informer.hpp"
#include "runtime/object_key.hpp"  // key_of, split_key, controller_owner_key
#include "runtime/observers.hpp"
#include "runtime/predicates.hpp"
#include "runtime/work_queue.hpp"

namespace cfo::runtime {

/// The outcome of one reconcile (controller-runtime reconcile.Result + error).
struct ReconcileResult {
  enum class Kind { Ok, RequeueAfter, Error };
  Kind kind = Kind::Ok;
  int64_t requeue_after_ms = 0;  ///< for RequeueAfter: > 0 (<= 0 is handled as Ok)
  std::string error;             ///< for Error: what went wrong (logged)

  /// Converged: the key's failures are forgotten.
  static ReconcileResult ok() { return {}; }
  /// Look again after `delay_ms` (e.g. to poll a child's progress), without counting a failure.
  static ReconcileResult requeue_after(int64_t delay_ms) { return {Kind::RequeueAfter, delay_ms, {}}; }
  /// Failed: retried with the key's exponential backoff.
  static ReconcileResult failed(std::string message) { return {Kind::Error, 0, std::move(message)}; }
};

/// Reconciles the object named by `key` ("namespace/name"): reads the world, converges, reports the outcome.
using ReconcileFn = std::function<ReconcileResult(const std::string& key)>;

/// controller-runtime controller.Options defaults.
struct ControllerOptions {
  std::string name = "codeflareworkload";        ///< for logs and the `controller` label of metrics
  int max_concurrent_reconciles = 1;             ///< worker threads (controller-runtime MaxConcurrentReconciles: 1)
  std::shared_ptr<ControllerObserver> observer;  ///< metrics hooks; null = none
  NowFn now;                                     ///< clock for reconcile durations; empty = steady clock
  /// Called by a worker after a reconcile that left no key ready in the queue (it drained); empty = nothing. The
  /// operator gives free heap back to the kernel there (HeapTrimmer).
  std::function<void()> on_idle;
};

/// What a Controller did, cumulative (controller_runtime_reconcile_total by result, plus panics).
struct ControllerStats {
  uint64_t success = 0;
  uint64_t requeue_after = 0;
  uint64_t error = 0;
  uint64_t exceptions = 0;  ///< reconciles that threw (also counted in `error`)
};

/// Runs max_concurrent_reconciles workers; each loops get() → reconcile → handle → done(), then on_idle() when the
/// queue has no ready key left. Handling follows
/// controller-runtime reconcileHandler:
/// - Error → add_rate_limited(key) (per-key exponential backoff) and a log line;
/// - RequeueAfter(d) → forget(key) + add_after(key, d);
/// - Ok → forget(key).
/// An exception thrown by the reconcile function is caught, logged and handled as an Error
/// (controller-runtime RecoverPanic, on by default). The queue guarantees one key is never reconciled by two
/// workers at once. start() and stop() may be called from different threads (e.g. start() by the leader-election
/// thread once the lease is won, stop() by the main thread on a signal); a start() after stop() fails.
class Controller {
 public:
  Controller(ControllerOptions opts, std::shared_ptr<WorkQueue> queue, ReconcileFn reconcile);
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;
  /// Stops and joins the workers.
  ~Controller();

  /// Starts the workers. Error when already started or when the options are invalid.
  Result<void> start();
  /// Shuts the queue down (waiting keys are dropped) and joins the workers after their current reconcile.
  /// Idempotent; call it from one thread (the owner), not from a reconcile.
  void stop();

  /// One worker step on the caller's thread: takes a key (blocking), reconciles it and handles the outcome.
  /// Returns false once the queue is shut down. Lets tests drive the controller without threads.
  bool process_next();

  /// The queue the workers pull from (shared with whoever enqueues keys).
  WorkQueue& queue() { return *queue_; }
  /// Counters of reconcile outcomes so far.
  ControllerStats stats() const;
  /// Workers inside a reconcile right now (controller_runtime_active_workers).
  int active_workers() const { return active_.load(); }
  /// The configured number of workers (controller_runtime_max_concurrent_reconciles).
  int max_concurrent_reconciles() const { return opts_.max_concurrent_reconciles; }
  /// The controller's name (the `controller` label).
  const std::string& name() const { return opts_.name; }

 private:
  void handle(const std::string& key);

  ControllerOptions opts_;
  std::shared_ptr<WorkQueue> queue_;
  ReconcileFn reconcile_;
  std::mutex lifecycle_mu_;  // guards workers_, started_ and stopped_ between start() and stop()
  std::vector<std::thread> workers_;
  bool started_ = false;
  bool stopped_ = false;
  std::atomic<int> active_{0};
  std::atomic<uint64_t> success_{0}, requeue_after_{0}, error_{0}, exceptions_{0};
};

/// Maps an object to the queue key it should wake, or std::nullopt to ignore it.
using KeyMapper = std::function<std::optional<std::string>(const json::Value& object)>;

/// The object's own key (For(): controller-runtime handler.EnqueueRequestForObject).
KeyMapper own_key();
/// The key of its controlling owner of `api_group`/`kind` (Owns(): EnqueueRequestForOwner + OnlyControllerOwner).
KeyMapper owner_key(std::string api_group, std::string kind);

/// Registers add/update/delete handlers on `informer` that add mapper(object) to `queue` (for updates, both the
/// old and the new object are mapped, so a changed owner wakes both). When `on_update` is set, an update whose
/// (old, new) pair it rejects enqueues nothing (e.g. spec_or_metadata_changed: status-only writes); adds and
/// deletes always enqueue. Call before informer.start().
void enqueue_from(Informer& informer, std::shared_ptr<WorkQueue> queue, KeyMapper mapper,
                  UpdatePredicate on_update = {});

/// Maps an object to every queue key it should wake (controller-runtime EnqueueRequestsFromMapFunc), e.g. a
/// LocalQueue to the workloads that name it.
using KeysMapper = std::function<std::vector<std::string>(const json::Value& object)>;

/// As enqueue_from, for a mapper that may wake several keys (or none).
void enqueue_all_from(Informer& informer, std::shared_ptr<WorkQueue> queue, KeysMapper mapper,
                      UpdatePredicate on_update = {});

}  // namespace cfo::runtime
