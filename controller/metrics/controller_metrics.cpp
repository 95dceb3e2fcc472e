#include "metrics/controller_metrics.hpp"

namespace cfo::metrics {

ControllerMetrics::ControllerMetrics(Metrics& metrics, const std::string& controller) : metrics_(metrics) {
  auto& reg = metrics.registry();
  const prometheus::Labels by_controller{{"controller", controller}};
  const prometheus::Labels queue_labels{{"name", controller}, {"controller", controller}};

  auto& total = prometheus::BuildCounter()
                    .Name("controller_runtime_reconcile_total")
                    .Help("Reconciles finished, by controller and outcome")
                    .Register(reg);
  const char* results[4] = {"success", "error", "requeue", "requeue_after"};
  for (int i = 0; i < 4; ++i) results_[i] = &total.Add({{"controller", controller}, {"result", results[i]}});
  errors_ = &prometheus::BuildCounter()
                 .Name("controller_runtime_reconcile_errors_total")
                 .Help("Reconciles that ended in an error, by controller")
                 .Register(reg)
                 .Add(by_controller);
  panics_ = &prometheus::BuildCounter()
                 .Name("controller_runtime_reconcile_panics_total")
                 .Help("Reconciles that threw an exception, by controller")
                 .Register(reg)
                 .Add(by_controller);
  reconcile_time_ = &prometheus::BuildHistogram()
                         .Name("controller_runtime_reconcile_time_seconds")
                         .Help("Seconds spent in each reconcile, by controller")
                         .Register(reg)
                         .Add(by_controller, reconcile_time_buckets());
  max_concurrent_ = &prometheus::BuildGauge()
                         .Name("controller_runtime_max_concurrent_reconciles")
                         .Help("Configured number of reconcile workers, by controller")
                         .Register(reg)
                         .Add(by_controller);
  active_workers_ = &prometheus::BuildGauge()
                         .Name("controller_runtime_active_workers")
                         .Help("Workers inside a reconcile right now, by controller")
                         .Register(reg)
                         .Add(by_controller);

  adds_ = &prometheus::BuildCounter()
               .Name("workqueue_adds_total")
               .Help("Keys put into the work queue (coalesced adds not counted)")
               .Register(reg)
               .Add(queue_labels);
  retries_ = &prometheus::BuildCounter()
                  .Name("workqueue_retries_total")
                  .Help("Delayed or rate-limited adds asked of the work queue")
                  .Register(reg)
                  .Add(queue_labels);
  depth_ = &prometheus::BuildGauge()
                .Name("workqueue_depth")
                .Help("Keys waiting in the work queue to be handed to a worker")
                .Register(reg)
                .Add(queue_labels);
  queue_duration_ = &prometheus::BuildHistogram()
                         .Name("workqueue_queue_duration_seconds")
                         .Help("Seconds a key waited in the work queue before a worker took it")
                         .Register(reg)
                         .Add(queue_labels, workqueue_duration_buckets());
  work_duration_ = &prometheus::BuildHistogram()
                        .Name("workqueue_work_duration_seconds")
                        .Help("Seconds a worker held a key, from taking it to marking it done")
                        .Register(reg)
                        .Add(queue_labels, workqueue_duration_buckets());
  unfinished_ = &prometheus::BuildGauge()
                     .Name("workqueue_unfinished_work_seconds")
                     .Help("Seconds run so far by all keys being worked on, not yet in work_duration")
                     .Register(reg)
                     .Add(queue_labels);
  longest_ = &prometheus::BuildGauge()
                  .Name("workqueue_longest_running_processor_seconds")
                  .Help("Seconds run so far by the key that has been worked on longest")
                  .Register(reg)
                  .Add(queue_labels);
}

void ControllerMetrics::track(const runtime::Controller& controller, const runtime::WorkQueue& queue) {
  max_concurrent_->Set(controller.max_concurrent_reconciles());
  metrics_.on_scrape([this, &controller, &queue] {
    active_workers_->Set(controller.active_workers());
    const runtime::WorkQueueSnapshot s = queue.snapshot();
    depth_->Set(static_cast<double>(s.depth));
    unfinished_->Set(s.unfinished_work_seconds);
    longest_->Set(s.longest_running_seconds);
  });
}

void ControllerMetrics::on_reconcile(runtime::ReconcileOutcome outcome, double seconds, bool panicked) {
  results_[static_cast<int>(outcome)]->Increment();
  if (outcome == runtime::ReconcileOutcome::Error) errors_->Increment();
  if (panicked) panics_->Increment();
  reconcile_time_->Observe(seconds);
}

void ControllerMetrics::on_add() { adds_->Increment(); }
void ControllerMetrics::on_retry() { retries_->Increment(); }
void ControllerMetrics::on_get(double queued_seconds) { queue_duration_->Observe(queued_seconds); }
void ControllerMetrics::on_done(double work_seconds) { work_duration_->Observe(work_seconds); }

}  // namespace cfo::metrics
