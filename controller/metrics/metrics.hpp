#pragma once
// The operator's Prometheus registry and its text exposition on /metrics.
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <prometheus/registry.h>

#include "runtime/http_server.hpp"

namespace cfo::metrics {

/// controller-runtime's buckets of controller_runtime_reconcile_time_seconds, in seconds: 0.005, 0.01, 0.025, 0.05,
/// then 0.1 to 1.0 (0.05 apart up to 0.5, 0.1 apart after), 1.25 to 2.0, 2.5 to 5, 6 to 10, 15 to 30, 40 to 60.
const std::vector<double>& reconcile_time_buckets();

/// The buckets of workqueue_queue_duration_seconds and workqueue_work_duration_seconds: 10 ns times powers of ten,
/// 12 of them (1e-8 s .. 1000 s), as controller-runtime's workqueue metrics provider.
const std::vector<double>& workqueue_duration_buckets();

/// One registry for the whole process. Components register their families on registry() (families of the same
/// name are merged, so two controllers share controller_runtime_reconcile_total). Values that are states rather
/// than events are refreshed by hooks run at each scrape. Thread-safe.
class Metrics {
 public:
  Metrics();

  /// The prometheus-cpp registry.
  prometheus::Registry& registry() { return *registry_; }

  /// Runs `hook` before every scrape, on the scraping thread (e.g. to copy a queue's depth into a gauge). Whatever
  /// the hook reads must outlive the metrics server.
  void on_scrape(std::function<void()> hook);

  /// Runs the scrape hooks and returns every family in the Prometheus text format (version 0.0.4), written by
  /// prometheus-cpp's TextSerializer.
  std::string scrape();

  /// The metrics server's handler: GET (or HEAD) /metrics answers scrape(); other paths 404, other methods 405.
  runtime::HttpHandler http_handler();

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  std::mutex hooks_mu_;
  std::vector<std::function<void()>> hooks_;
};

}  // namespace cfo::metrics
