// The pure parts of RestClient's request policy: the token bucket, the retry rules, Retry-After parsing and the
// interruptible sleep.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <thread>

#include "client/rest_client.hpp"
#include "client/rest_client_impl.hpp"
#include "client/retry_policy.hpp"
#include "client/request_throttle.hpp"
#include "client/wait.hpp"
#include "fake_time.hpp"

using namespace cfo::client;
using namespace cfo::client::testing;
using namespace std::chrono_literals;

// --- RequestThrottle --------------------------------------------------------------------------------------------

TEST(RequestThrottle, BurstGoesAtOnceThenRequestsAreSpacedOneOverQps) {
  FakeTime t;
  RequestThrottle bucket(10, 3, t.now_fn());
  EXPECT_EQ(bucket.reserve(), 0ns);
  EXPECT_EQ(bucket.reserve(), 0ns);
  EXPECT_EQ(bucket.reserve(), 0ns);
  // The bucket is empty: each further request waits 100 ms more than the previous one (it goes into debt).
  EXPECT_EQ(bucket.reserve(), 100ms);
  EXPECT_EQ(bucket.reserve(), 200ms);
  // 50 ms later half a token came back: the next one waits 250 ms from now.
  t.advance(50ms);
  EXPECT_EQ(bucket.reserve(), 250ms);
}

TEST(RequestThrottle, RefillsUpToBurstOnly) {
  FakeTime t;
  RequestThrottle bucket(2, 2, t.now_fn());
  EXPECT_EQ(bucket.reserve(), 0ns);
  EXPECT_EQ(bucket.reserve(), 0ns);
  t.advance(1h);  // a long quiet spell refills to 2 tokens, not 7200
  EXPECT_EQ(bucket.reserve(), 0ns);
  EXPECT_EQ(bucket.reserve(), 0ns);
  EXPECT_EQ(bucket.reserve(), 500ms);
}

TEST(RequestThrottle, FractionalQpsAndBadArgumentsAreSafe) {
  FakeTime t;
  RequestThrottle slow(0.5, 1, t.now_fn());
  EXPECT_EQ(slow.reserve(), 0ns);
  EXPECT_EQ(slow.reserve(), 2s);

  RequestThrottle odd(std::numeric_limits<double>::quiet_NaN(), -4, t.now_fn());
  EXPECT_EQ(odd.qps(), 1.0);
  EXPECT_EQ(odd.burst(), 1);
  EXPECT_EQ(odd.reserve(), 0ns);
  EXPECT_EQ(odd.reserve(), 1s);
}

// --- retry rules ----------------------------------------------------------------------------------------------------

namespace {
AttemptOutcome answered(unsigned status, std::optional<int> retry_after = std::nullopt) {
  AttemptOutcome o;
  o.status = status;
  o.retry_after_seconds = retry_after;
  return o;
}
AttemptOutcome dropped() {
  AttemptOutcome o;
  o.connection_dropped = true;
  return o;
}
}  // namespace

TEST(RetryPolicy, TooManyRequestsWithRetryAfterIsRetriedForEveryMethod) {
  RetryOptions opts;
  for (const char* method : {"GET", "POST", "PATCH", "PUT", "DELETE"})
    EXPECT_EQ(retry_delay(method, "application/json", answered(429, 3), 0, opts), std::optional(3000ms)) << method;
  EXPECT_EQ(retry_delay("POST", "application/json", answered(429, 0), 0, opts), std::optional(0ms));
}

TEST(RetryPolicy, ServerErrorsWithRetryAfterAreRetriedOnlyWhenIdempotent) {
  RetryOptions opts;
  EXPECT_EQ(retry_delay("GET", "", answered(503, 1), 0, opts), std::optional(1000ms));
  EXPECT_EQ(retry_delay("DELETE", "", answered(500, 2), 0, opts), std::optional(2000ms));
  EXPECT_EQ(retry_delay("PATCH", "application/apply-patch+yaml", answered(504, 1), 0, opts), std::optional(1000ms));
  EXPECT_EQ(retry_delay("PATCH", "application/merge-patch+json; charset=utf-8", answered(503, 1), 0, opts),
            std::optional(1000ms));
  EXPECT_EQ(retry_delay("POST", "application/json", answered(503, 1), 0, opts), std::nullopt);
  EXPECT_EQ(retry_delay("PATCH", "application/json-patch+json", answered(503, 1), 0, opts), std::nullopt);
}

TEST(RetryPolicy, NoRetryWithoutRetryAfterOrForOtherStatuses) {
  RetryOptions opts;
  EXPECT_EQ(retry_delay("GET", "", answered(429), 0, opts), std::nullopt);
  EXPECT_EQ(retry_delay("GET", "", answered(500), 0, opts), std::nullopt);
  for (unsigned status : {200u, 201u, 400u, 401u, 403u, 404u, 409u, 410u, 422u})
    EXPECT_EQ(retry_delay("GET", "", answered(status, 1), 0, opts), std::nullopt) << status;
  EXPECT_EQ(retry_delay("GET", "", answered(429, -1), 0, opts), std::nullopt);
}

TEST(RetryPolicy, RetriesAreBoundedAndLongWaitsAreLeftToTheCaller) {
  RetryOptions opts;  // client-go: 10
  EXPECT_TRUE(retry_delay("GET", "", answered(429, 1), 9, opts).has_value());
  EXPECT_FALSE(retry_delay("GET", "", answered(429, 1), 10, opts).has_value());
  opts.max_retries = 0;
  EXPECT_FALSE(retry_delay("GET", "", answered(429, 1), 0, opts).has_value());

  RetryOptions capped;
  EXPECT_TRUE(retry_delay("GET", "", answered(429, 60), 0, capped).has_value());
  EXPECT_FALSE(retry_delay("GET", "", answered(429, 61), 0, capped).has_value());
}

TEST(RetryPolicy, DroppedConnectionsAreRetriedForGetOnly) {
  RetryOptions opts;
  EXPECT_EQ(retry_delay("GET", "", dropped(), 0, opts), std::optional(1000ms));
  EXPECT_EQ(retry_delay("DELETE", "", dropped(), 0, opts), std::nullopt);
  EXPECT_EQ(retry_delay("PATCH", "application/apply-patch+yaml", dropped(), 0, opts), std::nullopt);
  EXPECT_EQ(retry_delay("GET", "", dropped(), 10, opts), std::nullopt);
}

TEST(RetryPolicy, IdempotentMethods) {
  EXPECT_TRUE(is_idempotent("GET", ""));
  EXPECT_TRUE(is_idempotent("HEAD", ""));
  EXPECT_TRUE(is_idempotent("PUT", "application/json"));
  EXPECT_TRUE(is_idempotent("DELETE", ""));
  EXPECT_TRUE(is_idempotent("PATCH", "application/apply-patch+yaml"));
  EXPECT_FALSE(is_idempotent("POST", "application/json"));
  EXPECT_FALSE(is_idempotent("PATCH", "application/json-patch+json"));
  EXPECT_FALSE(is_idempotent("PATCH", "application/strategic-merge-patch+json"));
}

TEST(RetryAfter, OnlyTheSecondsFormIsRead) {
  EXPECT_EQ(parse_retry_after("7"), 7);
  EXPECT_EQ(parse_retry_after(" 0 "), 0);
  EXPECT_EQ(parse_retry_after(""), std::nullopt);
  EXPECT_EQ(parse_retry_after("-1"), std::nullopt);
  EXPECT_EQ(parse_retry_after("1.5"), std::nullopt);
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), std::nullopt);
  EXPECT_EQ(parse_retry_after("99999999999999999999"), std::nullopt);
}

// --- sleep_unless_stopped -------------------------------------------------------------------------------------------

TEST(SleepUnlessStopped, AStopEndsTheWaitAtOnce) {
  StopToken a, b;
  std::array<StopToken*, 3> stops{&a, nullptr, &b};
  std::thread stopper([&] {
    std::this_thread::sleep_for(50ms);
    b.request_stop();
  });
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(sleep_unless_stopped(std::chrono::seconds(20), stops));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  stopper.join();
  EXPECT_FALSE(sleep_unless_stopped(1ms, stops));  // already stopped
}

TEST(SleepUnlessStopped, ShortWaitsComplete) {
  StopToken a;
  std::array<StopToken*, 1> stops{&a};
  auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(sleep_unless_stopped(20ms, stops));
  EXPECT_GE(std::chrono::steady_clock::now() - start, 20ms);
  EXPECT_TRUE(sleep_unless_stopped(0ns, stops));
  EXPECT_TRUE(sleep_unless_stopped(5ms, {}));
}

// --- watch idle limit -----------------------------------------------------------------------------------------------

TEST(WatchIdleLimit, TheWatchTimeoutPlusAMarginWinsOverTheConfiguredLimit) {
  // kube-apiserver 1.20 sends no periodic bookmarks: a quiet watch is silent until its timeoutSeconds.
  EXPECT_EQ(watch_idle_limit("/apis/ray.io/v1/rayclusters?watch=1&allowWatchBookmarks=true&resourceVersion=5&"
                             "timeoutSeconds=327&labelSelector=a",
                             90s),
            357s);
  EXPECT_EQ(watch_idle_limit("/api/v1/pods?timeoutSeconds=10&watch=1", 90s), 90s);  // never below the configured
  EXPECT_EQ(watch_idle_limit("/api/v1/pods?watch=1", 300ms), 300ms);
  EXPECT_EQ(watch_idle_limit("/api/v1/pods", 90s), 90s);
  EXPECT_EQ(watch_idle_limit("/api/v1/pods?xtimeoutSeconds=600&watch=1", 90s), 90s);
  for (const char* odd : {"/p?timeoutSeconds=", "/p?timeoutSeconds=-5", "/p?timeoutSeconds=12x", "/p?timeoutSeconds=0",
                          "/p?timeoutSeconds=99999999999999999999", "/p?timeoutSeconds=9999999"})
    EXPECT_EQ(watch_idle_limit(odd, 90s), 90s) << odd;
}
