#include "metrics/rest_client_metrics.hpp"

#include <prometheus/counter.h>

#include <string>

#include "client/response_observer.hpp"

namespace cfo::metrics {

RestClientMetrics::RestClientMetrics(Metrics& metrics) {
  auto* family = &prometheus::BuildCounter()
                      .Name("rest_client_requests_total")
                      .Help("Responses of the apiserver, by HTTP status code, method and host")
                      .Register(metrics.registry());
  client::set_response_observer([family](std::string_view method, std::string_view host, unsigned status) {
    // Family::Add returns the existing series for known labels (a hash lookup under the family's lock).
    family->Add({{"code", std::to_string(status)}, {"method", std::string(method)}, {"host", std::string(host)}})
        .Increment();
  });
}

RestClientMetrics::~RestClientMetrics() { client::set_response_observer({}); }

}  // namespace cfo::metrics
