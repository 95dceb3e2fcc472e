#pragma once
// rest_client_requests_total{code,method,host}: every apiserver response, counted through client::ResponseObserver.
#include "metrics/metrics.hpp"

namespace cfo::metrics {

/// While it lives, counts every response of every RestClient of the process in
/// rest_client_requests_total{code="200",method="GET",host="10.0.0.1:443"} (client-go's request metric; a retried
/// request counts each attempt that got an answer). Construct it once, before the clients are used; it removes the
/// process-wide observer when destroyed, so it must outlive every client call that could report.
class RestClientMetrics {
 public:
  explicit RestClientMetrics(Metrics& metrics);
  ~RestClientMetrics();
  RestClientMetrics(const RestClientMetrics&) = delete;
  RestClientMetrics& operator=(const RestClientMetrics&) = delete;
};

}  // namespace cfo::metrics
