#include "metrics/webhook_metrics.hpp"

namespace cfo::metrics {

const std::vector<double>& webhook_latency_buckets() {
  static const std::vector<double> buckets{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
  return buckets;
}

WebhookMetrics::WebhookMetrics(Metrics& metrics)
    : requests_(prometheus::BuildCounter()
                    .Name("controller_runtime_webhook_requests_total")
                    .Help("Admission requests answered, by HTTP status code and webhook path")
                    .Register(metrics.registry())),
      latency_(prometheus::BuildHistogram()
                   .Name("controller_runtime_webhook_latency_seconds")
                   .Help("Seconds from an admission request read to its answer written, by webhook path")
                   .Register(metrics.registry())),
      in_flight_(prometheus::BuildGauge()
                     .Name("controller_runtime_webhook_requests_in_flight")
                     .Help("Admission requests being decided, by webhook path")
                     .Register(metrics.registry())) {}

void WebhookMetrics::track(const std::string& path) {
  requests_.Add({{"code", "200"}, {"webhook", path}});
  latency_.Add({{"webhook", path}}, webhook_latency_buckets());
  in_flight_.Add({{"webhook", path}});
}

void WebhookMetrics::on_request_start(const std::string& path) { in_flight_.Add({{"webhook", path}}).Increment(); }

void WebhookMetrics::on_request_end(const std::string& path, unsigned code, double seconds) {
  in_flight_.Add({{"webhook", path}}).Decrement();
  requests_.Add({{"code", std::to_string(code)}, {"webhook", path}}).Increment();
  latency_.Add({{"webhook", path}}, webhook_latency_buckets()).Observe(seconds);
}

}  // namespace cfo::metrics
