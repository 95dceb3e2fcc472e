// The Prometheus exposition of the operator: controller-runtime's names and labels, read back from a scrape.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "client/response_observer.hpp"
#include "metrics/controller_metrics.hpp"
#include "metrics/leader_metrics.hpp"
#include "metrics/metrics.hpp"
#include "metrics/operator_metrics.hpp"
#include "metrics/rest_client_metrics.hpp"
#include "core/clock.hpp"
#include "runtime/controller.hpp"
#include "runtime/work_queue.hpp"

using namespace cfo;
using namespace cfo::metrics;

namespace {

/// The value of the sample `name{labels}` in a text exposition (labels in any order), or std::nullopt.
std::optional<double> sample(const std::string& text, const std::string& name,
                             const std::map<std::string, std::string>& labels) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto brace = line.find('{');
    auto space = line.rfind(' ');
    std::string metric = line.substr(0, brace == std::string::npos ? space : brace);
    if (metric != name) continue;
    std::map<std::string, std::string> found;
    if (brace != std::string::npos) {
      std::string inner = line.substr(brace + 1, line.find('}') - brace - 1);
      std::size_t pos = 0;
      while (pos < inner.size()) {
        auto eq = inner.find('=', pos);
        auto close = inner.find('"', eq + 2);
        found[inner.substr(pos, eq - pos)] = inner.substr(eq + 2, close - eq - 2);
        pos = close + 2;  // past '",'
      }
    }
    if (found == labels) return std::stod(line.substr(space + 1));
  }
  return std::nullopt;
}

int count_lines_starting(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0) ++n;
  return n;
}

const std::map<std::string, std::string> kCtl{{"controller", "cfw"}};
const std::map<std::string, std::string> kQueue{{"controller", "cfw"}, {"name", "cfw"}};

}  // namespace

TEST(ControllerMetrics, ReconcileOutcomesUseControllerRuntimeNamesAndLabels) {
  Metrics m;
  ControllerMetrics c(m, "cfw");
  std::string text = m.scrape();
  for (const char* result : {"success", "error", "requeue", "requeue_after"})
    EXPECT_EQ(sample(text, "controller_runtime_reconcile_total", {{"controller", "cfw"}, {"result", result}}), 0.0)
        << "pre-initialised: " << result;

  c.on_reconcile(runtime::ReconcileOutcome::Success, 0.003, false);
  c.on_reconcile(runtime::ReconcileOutcome::Success, 0.2, false);
  c.on_reconcile(runtime::ReconcileOutcome::RequeueAfter, 0.01, false);
  c.on_reconcile(runtime::ReconcileOutcome::Error, 2.0, true);
  text = m.scrape();
  EXPECT_EQ(sample(text, "controller_runtime_reconcile_total", {{"controller", "cfw"}, {"result", "success"}}), 2.0);
  EXPECT_EQ(sample(text, "controller_runtime_reconcile_total", {{"controller", "cfw"}, {"result", "requeue_after"}}),
            1.0);
  EXPECT_EQ(sample(text, "controller_runtime_reconcile_total", {{"controller", "cfw"}, {"result", "error"}}), 1.0);
  EXPECT_EQ(sample(text, "controller_runtime_reconcile_errors_total", kCtl), 1.0);
  EXPECT_EQ(sample(text, "controller_runtime_reconcile_panics_total", kCtl), 1.0);
  EXPECT_EQ(sample(text, "controller_runtime_reconcile_time_seconds_count", kCtl), 4.0);
  EXPECT_DOUBLE_EQ(*sample(text, "controller_runtime_reconcile_time_seconds_sum", kCtl), 2.213);
  EXPECT_EQ(sample(text, "controller_runtime_reconcile_time_seconds_bucket", {{"controller", "cfw"}, {"le", "0.005"}}),
            1.0);
  // controller-runtime's 40 bounds, plus +Inf.
  EXPECT_EQ(count_lines_starting(text, "controller_runtime_reconcile_time_seconds_bucket{"), 41);
  EXPECT_NE(text.find("# TYPE controller_runtime_reconcile_time_seconds histogram"), std::string::npos);
}

TEST(ControllerMetrics, WorkQueueEventsAndScrapeTimeGauges) {
  Metrics m;
  auto c = std::make_shared<ControllerMetrics>(m, "cfw");
  ManualClock clock;
  auto queue = std::make_shared<runtime::WorkQueue>(
      runtime::WorkQueueOptions{.backoff = {}, .now = clock.fn(), .bucket = {}, .observer = c});
  runtime::Controller controller(runtime::ControllerOptions{.name = "cfw", .max_concurrent_reconciles = 3}, queue,
                                 [](const std::string&) { return runtime::ReconcileResult::ok(); });
  c->track(controller, *queue);

  queue->add("ns/a");
  queue->add("ns/b");
  queue->add_after("ns/c", 1000);
  clock.advance(std::chrono::milliseconds(2));
  ASSERT_EQ(queue->try_get(), "ns/a");
  clock.advance(std::chrono::milliseconds(7));
  std::string text = m.scrape();
  EXPECT_EQ(sample(text, "workqueue_adds_total", kQueue), 2.0);
  EXPECT_EQ(sample(text, "workqueue_retries_total", kQueue), 1.0);
  EXPECT_EQ(sample(text, "workqueue_depth", kQueue), 1.0);
  EXPECT_EQ(sample(text, "workqueue_queue_duration_seconds_count", kQueue), 1.0);
  EXPECT_DOUBLE_EQ(*sample(text, "workqueue_queue_duration_seconds_sum", kQueue), 0.002);
  EXPECT_DOUBLE_EQ(*sample(text, "workqueue_unfinished_work_seconds", kQueue), 0.007);
  EXPECT_DOUBLE_EQ(*sample(text, "workqueue_longest_running_processor_seconds", kQueue), 0.007);
  EXPECT_EQ(sample(text, "workqueue_work_duration_seconds_count", kQueue), 0.0);
  EXPECT_EQ(count_lines_starting(text, "workqueue_work_duration_seconds_bucket{"), 13);  // 1e-8 .. 1e3, +Inf
  EXPECT_EQ(sample(text, "controller_runtime_max_concurrent_reconciles", kCtl), 3.0);
  EXPECT_EQ(sample(text, "controller_runtime_active_workers", kCtl), 0.0);

  queue->done("ns/a");
  text = m.scrape();
  EXPECT_EQ(sample(text, "workqueue_work_duration_seconds_count", kQueue), 1.0);
  EXPECT_EQ(sample(text, "workqueue_unfinished_work_seconds", kQueue), 0.0);
}

TEST(LeaderMetrics, MasterStatusFollowsTheElector) {
  Metrics m;
  bool leading = false;
  track_leader_election(m, "codeflare-operator.codeflare.dev", [&] { return leading; });
  const std::map<std::string, std::string> labels{{"name", "codeflare-operator.codeflare.dev"}};
  EXPECT_EQ(sample(m.scrape(), "leader_election_master_status", labels), 0.0);
  leading = true;
  EXPECT_EQ(sample(m.scrape(), "leader_election_master_status", labels), 1.0);
}

TEST(RestClientMetrics, CountsResponsesByCodeMethodAndHost) {
  Metrics m;
  {
    RestClientMetrics rest(m);
    client::notify_response("GET", "127.0.0.1:6443", 200);
    client::notify_response("GET", "127.0.0.1:6443", 200);
    client::notify_response("PATCH", "127.0.0.1:6443", 422);
  }
  client::notify_response("GET", "127.0.0.1:6443", 200);  // after it is gone: not counted, no crash
  std::string text = m.scrape();
  EXPECT_EQ(
      sample(text, "rest_client_requests_total", {{"code", "200"}, {"method", "GET"}, {"host", "127.0.0.1:6443"}}),
      2.0);
  EXPECT_EQ(
      sample(text, "rest_client_requests_total", {{"code", "422"}, {"method", "PATCH"}, {"host", "127.0.0.1:6443"}}),
      1.0);
}

TEST(OperatorMetrics, CountersByRuleAndKind) {
  Metrics m;
  OperatorMetrics o(m);
  std::string text = m.scrape();
  for (const char* kind : {"RayCluster", "AppWrapper", "RayJob", "LocalQueue"}) {
    EXPECT_EQ(sample(text, "codeflare_objects_applied_total", {{"kind", kind}}), 0.0) << kind;
    EXPECT_EQ(sample(text, "codeflare_dryrun_disagreements_total", {{"kind", kind}}), 0.0) << kind;
  }
  o.validation_rejected("RequestsWithinLimits");
  o.validation_rejected("RequestsWithinLimits");
  o.validation_rejected("DNS1035Label");
  o.object_applied("RayCluster");
  o.dry_run_disagreement("AppWrapper");
  text = m.scrape();
  EXPECT_EQ(sample(text, "codeflare_validation_rejections_total", {{"rule", "RequestsWithinLimits"}}), 2.0);
  EXPECT_EQ(sample(text, "codeflare_validation_rejections_total", {{"rule", "DNS1035Label"}}), 1.0);
  EXPECT_EQ(sample(text, "codeflare_objects_applied_total", {{"kind", "RayCluster"}}), 1.0);
  EXPECT_EQ(sample(text, "codeflare_dryrun_disagreements_total", {{"kind", "AppWrapper"}}), 1.0);
}

TEST(MetricsHandler, ServesTheExpositionOnMetricsOnly) {
  Metrics m;
  OperatorMetrics o(m);
  auto handler = m.http_handler();
  runtime::HttpResponse r = handler({"GET", "/metrics", ""});
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(r.content_type, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(r.body.find("codeflare_objects_applied_total"), std::string::npos);
  EXPECT_EQ(handler({"GET", "/", ""}).status, 404u);
  EXPECT_EQ(handler({"POST", "/metrics", ""}).status, 405u);
}
