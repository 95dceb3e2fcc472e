#pragma once
// controller_runtime_webhook_* metrics of the admission webhook server.
#include <string>
#include <vector>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>

#include "metrics/metrics.hpp"
#include "runtime/webhook_observer.hpp"

namespace cfo::metrics {

/// The buckets of controller_runtime_webhook_latency_seconds, in seconds: Prometheus's default buckets (0.005 to
/// 10), which controller-runtime's webhook histogram uses.
const std::vector<double>& webhook_latency_buckets();

/// The webhook server's metrics with controller-runtime's names and labels (pkg/webhook/internal/metrics), where
/// `webhook` is the request path ("/validate-ray-io-v1-raycluster"):
///  - controller_runtime_webhook_requests_total{code,webhook}: answers by HTTP status code ("200", "400", "503");
///  - controller_runtime_webhook_latency_seconds{webhook}: histogram of the time from a request read to its answer
///    written (webhook_latency_buckets());
///  - controller_runtime_webhook_requests_in_flight{webhook}: requests being decided.
/// Pass it (as a shared_ptr) to WebhookServerOptions::observer. Thread-safe.
class WebhookMetrics final : public runtime::WebhookObserver {
 public:
  explicit WebhookMetrics(Metrics& metrics);

  /// Makes the series of `path` exist from the start (in flight 0, an empty histogram, requests_total{code="200"} 0),
  /// so that dashboards and alerts see every registered webhook before its first request.
  void track(const std::string& path);

  void on_request_start(const std::string& path) override;
  void on_request_end(const std::string& path, unsigned code, double seconds) override;

 private:
  prometheus::Family<prometheus::Counter>& requests_;
  prometheus::Family<prometheus::Histogram>& latency_;
  prometheus::Family<prometheus::Gauge>& in_flight_;
};

}  // namespace cfo::metrics
