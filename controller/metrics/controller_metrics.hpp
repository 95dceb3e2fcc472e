#pragma once
// controller_runtime_* and workqueue_* metrics of one controller and its work queue.
#include <string>

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>

#include "metrics/metrics.hpp"
#include "runtime/controller.hpp"
#include "runtime/observers.hpp"
#include "runtime/work_queue.hpp"

namespace cfo::metrics {

/// The metrics of the controller named `controller` (e.g. "codeflareworkload"), with controller-runtime's names and
/// labels:
///  - controller_runtime_reconcile_total{controller,result}  result: success | error | requeue | requeue_after
///    (all four exist from the start, at 0, as controller-runtime pre-initialises them);
///  - controller_runtime_reconcile_errors_total{controller}, controller_runtime_reconcile_panics_total{controller};
///  - controller_runtime_reconcile_time_seconds{controller} (histogram, reconcile_time_buckets());
///  - controller_runtime_max_concurrent_reconciles{controller}, controller_runtime_active_workers{controller};
///  - workqueue_adds_total, workqueue_retries_total, workqueue_depth, workqueue_queue_duration_seconds,
///    workqueue_work_duration_seconds (histograms, workqueue_duration_buckets()), workqueue_unfinished_work_seconds
///    and workqueue_longest_running_processor_seconds, each labelled name=<controller> and controller=<controller>.
/// Pass it (as a shared_ptr) to WorkQueueOptions::observer and ControllerOptions::observer; each event is a few
/// atomic increments on pre-resolved series (a histogram observation also takes that histogram's mutex). Gauges of
/// state are read at scrape time once track() was called.
class ControllerMetrics final : public runtime::ControllerObserver, public runtime::WorkQueueObserver {
 public:
  ControllerMetrics(Metrics& metrics, const std::string& controller);

  /// Reads `controller` (active workers, max concurrent reconciles) and `queue` (depth, unfinished work) at every
  /// scrape. Both must outlive the metrics server.
  void track(const runtime::Controller& controller, const runtime::WorkQueue& queue);

  void on_reconcile(runtime::ReconcileOutcome outcome, double seconds, bool panicked) override;
  void on_add() override;
  void on_retry() override;
  void on_get(double queued_seconds) override;
  void on_done(double work_seconds) override;

 private:
  Metrics& metrics_;
  prometheus::Counter* results_[4];  // indexed by ReconcileOutcome
  prometheus::Counter* errors_;
  prometheus::Counter* panics_;
  prometheus::Histogram* reconcile_time_;
  prometheus::Gauge* max_concurrent_;
  prometheus::Gauge* active_workers_;
  prometheus::Counter* adds_;
  prometheus::Counter* retries_;
  prometheus::Gauge* depth_;
  prometheus::Histogram* queue_duration_;
  prometheus::Histogram* work_duration_;
  prometheus::Gauge* unfinished_;
  prometheus::Gauge* longest_;
};

}  // namespace cfo::metrics
