#include "metrics/metrics.hpp"

#include <prometheus/text_serializer.h>

namespace cfo::metrics {

const std::vector<double>& reconcile_time_buckets() {
  static const std::vector<double> buckets{
      0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5,
      1.75,  2.0,  2.5,   3.0,  3.5, 4.0,  4.5, 5,    6,   7,    8,   9,    10,  15,  20,  25,  30,  40,  50,   60};
  return buckets;
}

const std::vector<double>& workqueue_duration_buckets() {
  // Written out rather than multiplied, so that every bound is the nearest double to its power of ten.
  static const std::vector<double> buckets{1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3};
  return buckets;
}

Metrics::Metrics() : registry_(std::make_shared<prometheus::Registry>()) {}

void Metrics::on_scrape(std::function<void()> hook) {
  std::lock_guard lk(hooks_mu_);
  hooks_.push_back(std::move(hook));
}

std::string Metrics::scrape() {
  {
    std::lock_guard lk(hooks_mu_);
    for (auto& hook : hooks_) hook();
  }
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

runtime::HttpHandler Metrics::http_handler() {
  return [this](const runtime::HttpRequest& req) -> runtime::HttpResponse {
    if (req.path != "/metrics") return {404, "text/plain; charset=utf-8", "not found\n"};
    if (req.method != "GET" && req.method != "HEAD") return {405, "text/plain; charset=utf-8", "method not allowed\n"};
    runtime::HttpResponse r{200, "text/plain; version=0.0.4; charset=utf-8", scrape()};
    if (req.method == "HEAD") r.body.clear();
    return r;
  };
}

}  // namespace cfo::metrics
