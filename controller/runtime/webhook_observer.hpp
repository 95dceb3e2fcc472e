#pragma once
// Hooks through which the admission webhook server (controller/webhook/) reports its requests, so that the metrics
// layer (controller/metrics/webhook_metrics) counts them without the server depending on prometheus-cpp. Called on
// the server's I/O and handler threads: implementations must be quick, thread-safe and must not block.
#include <string>

namespace cfo::runtime {

/// Events of a webhook server, named after controller-runtime's webhook metrics they feed
/// (sigs.k8s.io/controller-runtime/pkg/webhook/internal/metrics).
class WebhookObserver {
 public:
  virtual ~WebhookObserver() = default;
  /// A request for the webhook at `path` (e.g. "/validate-ray-io-v1-raycluster") was read and is being decided:
  /// controller_runtime_webhook_requests_in_flight{webhook} goes up.
  virtual void on_request_start(const std::string& path) = 0;
  /// The answer to that request was sent with HTTP status `code` after `seconds` (from the request read to the
  /// answer written): controller_runtime_webhook_requests_total{code,webhook} and
  /// controller_runtime_webhook_latency_seconds{webhook}; in flight goes down.
  virtual void on_request_end(const std::string& path, unsigned code, double seconds) = 0;
};

}  // namespace cfo::runtime
