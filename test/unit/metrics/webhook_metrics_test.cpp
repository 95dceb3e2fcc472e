// controller_runtime_webhook_* as controller-runtime names and labels them, read back from a scrape.
#include <gtest/gtest.h>

#include <string>

#include "metrics/metrics.hpp"
#include "metrics/webhook_metrics.hpp"

using namespace cfo;
using namespace cfo::metrics;

namespace {
/// True when the exposition has the line `series value` (labels as prometheus-cpp writes them, sorted).
bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos || text.rfind(line + "\n", 0) == 0;
}
}  // namespace

TEST(WebhookMetrics, TrackedPathsExistBeforeTheirFirstRequest) {
  Metrics m;
  WebhookMetrics w(m);
  w.track("/validate-codeflare-dev-v1alpha1-codeflareworkload");
  const std::string text = m.scrape();
  EXPECT_TRUE(has_line(text,
                       "controller_runtime_webhook_requests_total{code=\"200\",webhook=\"/validate-codeflare-"
                       "dev-v1alpha1-codeflareworkload\"} 0"))
      << text;
  EXPECT_TRUE(has_line(text,
                       "controller_runtime_webhook_requests_in_flight{webhook=\"/validate-codeflare-dev-v1alpha1-"
                       "codeflareworkload\"} 0"));
  EXPECT_TRUE(has_line(text,
                       "controller_runtime_webhook_latency_seconds_count{webhook=\"/validate-codeflare-dev-"
                       "v1alpha1-codeflareworkload\"} 0"));
  EXPECT_NE(text.find("# TYPE controller_runtime_webhook_latency_seconds histogram"), std::string::npos);
}

TEST(WebhookMetrics, RequestsAreCountedByCodeWithLatencyAndInFlight) {
  Metrics m;
  WebhookMetrics w(m);
  runtime::WebhookObserver& observer = w;
  observer.on_request_start("/v");
  observer.on_request_start("/v");
  EXPECT_TRUE(has_line(m.scrape(), "controller_runtime_webhook_requests_in_flight{webhook=\"/v\"} 2"));
  observer.on_request_end("/v", 200, 0.003);
  observer.on_request_end("/v", 503, 5.0);
  const std::string text = m.scrape();
  EXPECT_TRUE(has_line(text, "controller_runtime_webhook_requests_in_flight{webhook=\"/v\"} 0")) << text;
  EXPECT_TRUE(has_line(text, "controller_runtime_webhook_requests_total{code=\"200\",webhook=\"/v\"} 1"));
  EXPECT_TRUE(has_line(text, "controller_runtime_webhook_requests_total{code=\"503\",webhook=\"/v\"} 1"));
  EXPECT_TRUE(has_line(text, "controller_runtime_webhook_latency_seconds_count{webhook=\"/v\"} 2"));
  EXPECT_TRUE(has_line(text, "controller_runtime_webhook_latency_seconds_bucket{webhook=\"/v\",le=\"0.005\"} 1"));
  EXPECT_TRUE(has_line(text, "controller_runtime_webhook_latency_seconds_bucket{webhook=\"/v\",le=\"5\"} 2"));
  EXPECT_EQ(webhook_latency_buckets().size(), 11u);
}
