// RestClient against the HTTPS test server: retries of 429/5xx with Retry-After, client-side rate limiting,
// credential files re-read on their period, and cancellation through with_stop. Time is fake (FakeTime) except
// where a real wait is the point, and then it is milliseconds.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <mutex>
#include <thread>

#include "client/response_observer.hpp"
#include "client/rest_client.hpp"
#include "core/json.hpp"
#include "fake_time.hpp"
#include "https_test_server.hpp"
#include "temp_dir.hpp"

using namespace cfo;
using namespace cfo::client;
using namespace cfo::client::testing;
using namespace std::chrono_literals;

namespace {

constexpr const char* kThrottled =
    R"({"kind":"Status","status":"Failure","message":"Too many requests, please try again later.",)"
    R"("reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429})";

CannedResponse throttled(const std::string& retry_after) { return {429, kThrottled, {{"Retry-After", retry_after}}}; }
CannedResponse ok(const std::string& body = R"({"kind":"Namespace"})") { return {200, body, {}}; }

class RestClientPolicy : public ::testing::Test {
 protected:
  TestCa ca{"test-ca"};
  TestCert serving = ca.issue("kube-apiserver", {"IP:127.0.0.1"});
  FakeTime time;

  ClientConfig config_for(const HttpsTestServer& server) const {
    ClientConfig cfg;
    cfg.server = server.url();
    cfg.ca_pem = ca.cert_pem();
    cfg.bearer_token = "secret-token";
    return cfg;
  }
  /// Options with fake time and short real time limits.
  RestClientOptions options() {
    RestClientOptions o;
    o.timeouts = {2000ms, 5000ms, 5000ms};
    o.now = time.now_fn();
    o.sleep = time.sleep_fn();
    return o;
  }
  std::vector<std::chrono::nanoseconds> waits() const {
    std::vector<std::chrono::nanoseconds> out;
    for (auto d : time.sleeps())
      if (d > 0ns) out.push_back(d);
    return out;
  }
};

/// Watches /api/v1/pods to the end of its stream, every line into `lines`; the watch's result.
Result<void> watch_lines(RestClient& client, std::vector<std::string>& lines) {
  StopToken stop;
  return client.watch(
      "/api/v1/pods?watch=1",
      [&](std::string_view l) {
        lines.emplace_back(l);
        return true;
      },
      stop);
}

// Records what the retry observer is told while it lives ("<what> | <reason> | dropped | <delay> ms | retry <n>").
struct RetryRecorder {
  std::vector<std::string> told;
  std::mutex mu;
  RetryRecorder() {
    set_retry_observer(
        [this](std::string_view what, std::string_view reason, bool dropped, int64_t delay_ms, int retry) {
          std::lock_guard lock(mu);
          told.push_back(std::string(what) + " | " + std::string(reason) + " | " + (dropped ? "dropped" : "answered") +
                         " | " + std::to_string(delay_ms) + " ms | retry " + std::to_string(retry));
        });
  }
  ~RetryRecorder() { set_retry_observer({}); }
  RetryRecorder(const RetryRecorder&) = delete;
  RetryRecorder& operator=(const RetryRecorder&) = delete;
};

}  // namespace

// --- retries ------------------------------------------------------------------------------------------------------

TEST_F(RestClientPolicy, TooManyRequestsIsRetriedAfterRetryAfterThenSucceeds) {
  HttpsTestServer server(serving, answer_in_order({throttled("1"), throttled("2"), ok()}));
  RestClient client(config_for(server), options());
  RetryRecorder retries;
  auto doc = client.get_json("/api/v1/namespaces/a");
  ASSERT_TRUE(doc.has_value()) << doc.error().message;
  EXPECT_EQ(json::get_string(*doc, "kind"), "Namespace");
  EXPECT_EQ(server.requests().size(), 3u);
  EXPECT_EQ(time.sleeps(), (std::vector<std::chrono::nanoseconds>{1s, 2s}));
  // Each retry is told (the operator logs it): the request, why, the wait and the retry's number.
  EXPECT_EQ(retries.told,
            (std::vector<std::string>{"GET /api/v1/namespaces/a | HTTP 429 | answered | 1000 ms | retry 1",
                                      "GET /api/v1/namespaces/a | HTTP 429 | answered | 2000 ms | retry 2"}));
}

TEST_F(RestClientPolicy, WritesAreRetriedOnTooManyRequestsButNotOnServerErrors) {
  {
    HttpsTestServer server(serving, answer_in_order({throttled("0"), {201, "{}", {}}}));
    RestClient client(config_for(server), options());
    json::Document obj;
    obj.SetObject();
    ASSERT_TRUE(client.create("/api/v1/namespaces", obj).has_value());
    EXPECT_EQ(server.requests().size(), 2u);
  }
  {
    // A 503 may come after the object was created: sending the POST again is not safe.
    HttpsTestServer server(serving, answer_in_order({{503, "{}", {{"Retry-After", "1"}}}, {201, "{}", {}}}));
    RestClient client(config_for(server), options());
    json::Document obj;
    obj.SetObject();
    auto r = client.create("/api/v1/namespaces", obj);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().http_status, 503);
    EXPECT_EQ(server.requests().size(), 1u);
  }
  {
    // Server-side apply is idempotent: a 503 with Retry-After is retried.
    HttpsTestServer server(serving, answer_in_order({{503, "{}", {{"Retry-After", "1"}}}, ok("{}")}));
    RestClient client(config_for(server), options());
    json::Document obj;
    obj.SetObject();
    ASSERT_TRUE(client.apply("/api/v1/namespaces/a/configmaps/c", obj).has_value());
    EXPECT_EQ(server.requests().size(), 2u);
    EXPECT_EQ(time.sleeps().back(), 1s);
  }
}

TEST_F(RestClientPolicy, NonRetryableAnswersAreReturnedAtOnce) {
  for (CannedResponse answer : {CannedResponse{500, "{}", {}}, CannedResponse{429, kThrottled, {}},
                                CannedResponse{404, "{}", {}}, CannedResponse{409, "{}", {{"Retry-After", "1"}}},
                                CannedResponse{429, kThrottled, {{"Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT"}}}}) {
    HttpsTestServer server(serving, answer_in_order({answer, ok()}));
    RestClient client(config_for(server), options());
    auto r = client.request("GET", "/api/v1/pods");
    ASSERT_TRUE(r.has_value()) << r.error().message;
    EXPECT_EQ(r->status, answer.status);
    EXPECT_EQ(server.requests().size(), 1u) << answer.status;
  }
  EXPECT_TRUE(waits().empty());
}

TEST_F(RestClientPolicy, RetriesAreBounded) {
  HttpsTestServer server(serving, answer_in_order({throttled("1")}));
  RestClient client(config_for(server), options());
  auto r = client.get_json("/api/v1/pods");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().http_status, 429);
  EXPECT_EQ(r.error().reason, "TooManyRequests");
  EXPECT_EQ(server.requests().size(), 11u);  // the first attempt and client-go's 10 retries
  EXPECT_EQ(waits().size(), 10u);

  RestClientOptions three = options();
  three.retry.max_retries = 3;
  HttpsTestServer other(serving, answer_in_order({throttled("1")}));
  RestClient fewer(config_for(other), three);
  EXPECT_FALSE(fewer.get_json("/api/v1/pods").has_value());
  EXPECT_EQ(other.requests().size(), 4u);
}

TEST_F(RestClientPolicy, ARetryAfterBeyondTheCapIsLeftToTheCaller) {
  HttpsTestServer server(serving, answer_in_order({throttled("3600"), ok()}));
  RestClient client(config_for(server), options());
  auto r = client.request("GET", "/api/v1/pods");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 429u);
  EXPECT_EQ(r->retry_after_seconds, 3600);
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(RestClientPolicy, ADroppedConnectionIsRetriedForGetOnly) {
  CannedResponse drop;
  drop.drop = true;
  HttpsTestServer server(serving, answer_in_order({drop, ok()}));
  RestClient client(config_for(server), options());
  RetryRecorder retries;
  auto doc = client.get_json("/api/v1/namespaces/a");
  ASSERT_TRUE(doc.has_value()) << doc.error().message;
  EXPECT_EQ(server.requests().size(), 2u);
  EXPECT_EQ(waits(), (std::vector<std::chrono::nanoseconds>{1s}));
  ASSERT_EQ(retries.told.size(), 1u);
  EXPECT_NE(retries.told[0].find("| dropped | 1000 ms | retry 1"), std::string::npos) << retries.told[0];
  EXPECT_EQ(retries.told[0].rfind("GET /api/v1/namespaces/a | ", 0), 0u) << retries.told[0];

  HttpsTestServer dropping(serving, answer_in_order({drop, ok()}));
  RestClient writer(config_for(dropping), options());
  auto r = writer.request("DELETE", "/api/v1/namespaces/a/configmaps/c");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(dropping.requests().size(), 1u);
}

TEST_F(RestClientPolicy, OnlyTheOpeningOfAWatchIsRetried) {
  HttpsTestServer server(serving, [calls = std::make_shared<std::atomic<int>>(0)](ServerExchange& x) {
    const int n = (*calls)++;
    if (n == 0) {
      x.respond(429, kThrottled, {{"Retry-After", "2"}});
      return;
    }
    x.start_chunked(200);
    x.send_chunk("{\"type\":\"ADDED\",\"object\":{\"n\":" + std::to_string(n) + "}}\n");
    if (n == 1) return;  // the connection drops mid-stream: the watch ends, and is not reopened by the client
    x.end_chunked();
  });
  RestClient client(config_for(server), options());
  std::vector<std::string> lines;
  auto r = watch_lines(client, lines);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(lines, (std::vector<std::string>{R"({"type":"ADDED","object":{"n":1}})"}));
  EXPECT_EQ(server.requests().size(), 2u);
  EXPECT_EQ(waits(), (std::vector<std::chrono::nanoseconds>{2s}));
}

// An informer lists, then watches: the watch goes over the connection the list gave back to the pool (one TCP
// connection and one TLS handshake for both, as Go's transport does), and keeps it to the end of its stream.
TEST_F(RestClientPolicy, AWatchGoesOverTheConnectionAListGaveBack) {
  const std::string event = R"({"type":"ADDED","object":{"n":1}})";
  HttpsTestServer server(serving, answer_in_order({ok(R"({"kind":"PodList","items":[]})"), ok(event + "\n")}), {},
                         /*keep_alive=*/true);
  RestClient client(config_for(server), options());
  ASSERT_TRUE(client.get_json("/api/v1/pods").has_value());
  std::vector<std::string> lines;
  auto r = watch_lines(client, lines);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(lines, (std::vector<std::string>{event}));
  EXPECT_EQ(server.requests().size(), 2u);
  EXPECT_EQ(server.connections_served(), 1);
  // The watch did not give its connection back: the next request opens a new one.
  ASSERT_TRUE(client.get_json("/api/v1/pods").has_value());
  EXPECT_EQ(server.connections_served(), 2);
}

// A kept connection that the server closed while it sat idle fails the watch before any answer: the watch opens
// again at once on a new connection, without a retry's wait and without counting one.
TEST_F(RestClientPolicy, AWatchOnAKeptConnectionTheServerClosedOpensANewOneAtOnce) {
  const std::string event = R"({"type":"ADDED","object":{"n":1}})";
  CannedResponse drop;
  drop.drop = true;
  HttpsTestServer server(serving, answer_in_order({ok(R"({"kind":"PodList","items":[]})"), drop, ok(event + "\n")}), {},
                         /*keep_alive=*/true);
  RestClientOptions o = options();
  o.retry.max_retries = 0;
  RestClient client(config_for(server), o);
  ASSERT_TRUE(client.get_json("/api/v1/pods").has_value());
  RetryRecorder retries;
  std::vector<std::string> lines;
  auto r = watch_lines(client, lines);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(lines, (std::vector<std::string>{event}));
  EXPECT_EQ(server.connections_served(), 2);
  EXPECT_TRUE(waits().empty());
  EXPECT_TRUE(retries.told.empty());
}

TEST_F(RestClientPolicy, AWatchRefusedForGoodIsAnError) {
  HttpsTestServer server(serving, answer_in_order({{403, R"({"kind":"Status","reason":"Forbidden","code":403})", {}}}));
  RestClient client(config_for(server), options());
  StopToken stop;
  auto r = client.watch("/api/v1/pods?watch=1", [](std::string_view) { return true; }, stop);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().http_status, 403);
  EXPECT_EQ(server.requests().size(), 1u);
}

// --- rate limit ---------------------------------------------------------------------------------------------------

TEST_F(RestClientPolicy, NoClientSideLimitByDefault) {
  HttpsTestServer server(serving, answer_in_order({ok()}));
  RestClient client(config_for(server), options());
  for (int i = 0; i < 15; ++i) ASSERT_TRUE(client.get_json("/version").has_value());
  EXPECT_TRUE(waits().empty());
}

TEST_F(RestClientPolicy, QpsAndBurstSpaceRequestsOut) {
  HttpsTestServer server(serving, answer_in_order({ok()}));
  RestClientOptions o = options();
  o.qps = 2;
  o.burst = 2;
  RestClient client(config_for(server), o);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(client.get_json("/version").has_value());
  // Two go at once (the burst); then one every 1/qps = 500 ms (the fake sleep moves the clock).
  EXPECT_EQ(waits(), (std::vector<std::chrono::nanoseconds>{500ms, 500ms, 500ms}));
  EXPECT_EQ(server.requests().size(), 5u);

  // Copies share the bucket.
  RestClient copy = client;
  ASSERT_TRUE(copy.get_json("/version").has_value());
  EXPECT_EQ(waits().size(), 4u);
}

TEST_F(RestClientPolicy, RetriesAndWatchesPassThroughTheRateLimiter) {
  HttpsTestServer server(serving, answer_in_order({throttled("0"), ok()}));
  RestClientOptions o = options();
  o.qps = 1;
  o.burst = 1;
  RestClient client(config_for(server), o);
  ASSERT_TRUE(client.get_json("/version").has_value());
  EXPECT_EQ(waits(), (std::vector<std::chrono::nanoseconds>{1s}));  // the retry waited for a token

  StopToken stop;
  auto w = client.watch("/api/v1/pods?watch=1", [](std::string_view) { return true; }, stop);
  EXPECT_TRUE(w.has_value()) << w.error().message;
  EXPECT_EQ(waits().size(), 2u);  // the watch waited for a token too
}

// --- credentials re-read --------------------------------------------------------------------------------------------

TEST_F(RestClientPolicy, TheTokenFileIsReReadEveryMinute) {
  TempDir dir;
  HttpsTestServer server(serving, answer_in_order({ok()}));
  ClientConfig cfg = config_for(server);
  cfg.bearer_token = "first";  // what the loader read
  cfg.bearer_token_file = dir.write("token", "first\n");
  RestClient client(cfg, options());
  auto bearer = [&] {
    EXPECT_TRUE(client.get_json("/version").has_value());
    return server.requests().back().header("authorization");
  };
  EXPECT_EQ(bearer(), "Bearer first");
  dir.write("token", "second\n");  // the kubelet rotated the projected token
  time.advance(59s);
  EXPECT_EQ(bearer(), "Bearer first");  // not due yet
  time.advance(2s);
  EXPECT_EQ(bearer(), "Bearer second");
  std::filesystem::remove(dir.path() / "token");
  time.advance(61s);
  EXPECT_EQ(bearer(), "Bearer second");  // an unreadable file keeps the last good token
}

TEST_F(RestClientPolicy, TheCaFileIsReloadedEveryFiveMinutesForNewConnections) {
  TempDir dir;
  TestCa old_ca("old-ca");
  HttpsTestServer server(serving, answer_in_order({ok()}));
  ClientConfig cfg = config_for(server);
  cfg.ca_pem = old_ca.cert_pem();
  cfg.ca_file = dir.write("ca.crt", old_ca.cert_pem());
  RestClient client(cfg, options());
  auto first = client.get_json("/version");
  ASSERT_FALSE(first.has_value());
  EXPECT_NE(first.error().message.find("TLS handshake"), std::string::npos) << first.error().message;

  dir.write("ca.crt", old_ca.cert_pem() + ca.cert_pem());  // the bundle now trusts the serving CA too
  time.advance(4min);
  EXPECT_FALSE(client.get_json("/version").has_value());  // not re-read yet
  time.advance(61s);
  auto later = client.get_json("/version");
  EXPECT_TRUE(later.has_value()) << later.error().message;

  dir.write("ca.crt", "garbage");  // a broken bundle keeps the working context
  time.advance(6min);
  EXPECT_TRUE(client.get_json("/version").has_value());
}

// --- cancellation -------------------------------------------------------------------------------------------------

TEST_F(RestClientPolicy, WithStopEndsARequestInFlightAndLaterOnes) {
  std::atomic<bool> server_saw_close{false};
  HttpsTestServer server(serving, [&](ServerExchange& x) {
    if (x.request().target == "/slow")
      server_saw_close = x.wait_for_client_close(10s);
    else
      x.respond(200, "{}");
  });
  RestClient client(config_for(server));  // real time: a 60 s request timeout must not be what ends it
  auto token = std::make_shared<StopToken>();
  RestClient cache_client = client.with_stop(token);

  auto pending = std::async(std::launch::async, [&] { return cache_client.get_json("/slow"); });
  for (int i = 0; i < 250 && server.requests().empty(); ++i) std::this_thread::sleep_for(20ms);
  ASSERT_EQ(server.requests().size(), 1u);
  auto start = std::chrono::steady_clock::now();
  token->request_stop();
  ASSERT_EQ(pending.wait_for(5s), std::future_status::ready);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  auto r = pending.get();
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().reason, "Cancelled");
  EXPECT_NE(r.error().message.find("cancelled"), std::string::npos) << r.error().message;
  for (int i = 0; i < 100 && !server_saw_close; ++i) std::this_thread::sleep_for(20ms);
  EXPECT_TRUE(server_saw_close.load());

  EXPECT_FALSE(cache_client.get_json("/version").has_value());  // later calls fail at once
  EXPECT_EQ(server.requests().size(), 1u);
  StopToken own;
  EXPECT_TRUE(cache_client.watch("/api/v1/pods?watch=1", [](std::string_view) { return true; }, own).has_value());
  EXPECT_EQ(server.requests().size(), 1u);
  EXPECT_TRUE(client.get_json("/version").has_value());  // the original client is not affected
}

TEST_F(RestClientPolicy, WithStopInterruptsARetryAfterWait) {
  HttpsTestServer server(serving, answer_in_order({throttled("30"), ok()}));
  auto token = std::make_shared<StopToken>();
  RestClient client = RestClient(config_for(server)).with_stop(token);  // real sleep
  std::thread stopper([&] {
    for (int i = 0; i < 250 && server.requests().empty(); ++i) std::this_thread::sleep_for(20ms);
    std::this_thread::sleep_for(50ms);
    token->request_stop();
  });
  auto start = std::chrono::steady_clock::now();
  auto r = client.get_json("/version");
  stopper.join();
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().reason, "Cancelled");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_EQ(server.requests().size(), 1u);
}

// --- lists read item by item ---------------------------------------------------------------------------------------

namespace {

/// Answers every request with the first `pieces` of a chunked list, then (when `cut`) ends the connection mid-body.
HttpsTestServer::Handler chunked_list(std::vector<std::string> pieces, bool cut) {
  return [pieces = std::move(pieces), cut](ServerExchange& x) {
    x.start_chunked(200);
    for (const auto& p : pieces) x.send_chunk(p);
    if (!cut) x.end_chunked();
  };
}

}  // namespace

// Items are handed on as their text completes, across chunk boundaries; the list comes back without them.
TEST_F(RestClientPolicy, GetListHandsOnEachItemAndReturnsTheListWithoutThem) {
  HttpsTestServer server(serving, chunked_list({R"({"apiVersion":"v1","items":[{"metadata":{"na)",
                                                R"(me":"a"}},{"metadata":{"name":"b"}}],"kind":"ConfigMapList",)",
                                                R"("metadata":{"resourceVersion":"77"}})"},
                                               false));
  RestClient client(config_for(server), options());
  std::vector<std::string> items;
  auto list = client.get_list("/api/v1/configmaps?resourceVersion=0",
                              [&](std::string_view item, std::string_view, std::string_view) -> Result<void> {
                                items.emplace_back(item);
                                return {};
                              });
  ASSERT_TRUE(list.has_value()) << list.error().message;
  EXPECT_EQ(items, (std::vector<std::string>{R"({"metadata":{"name":"a"}})", R"({"metadata":{"name":"b"}})"}));
  EXPECT_EQ(json::string_at(*list, "metadata.resourceVersion"), "77");
  EXPECT_EQ(json::dump(*json::find(*list, "items")), "[]");
}

// A list whose body broke off after items were handed on is not sent again (the caller has seen part of it; the
// informer lists again from the start), while the same break before any answer is retried as for any GET.
TEST_F(RestClientPolicy, GetListIsNotSentAgainOnceItsBodyHasBegun) {
  HttpsTestServer server(serving, chunked_list({R"({"items":[{"a":1},{"b")"}, true));
  RestClient client(config_for(server), options());
  int items = 0;
  auto list = client.get_list("/api/v1/configmaps", [&](std::string_view, std::string_view, std::string_view) {
    ++items;
    return Result<void>{};
  });
  ASSERT_FALSE(list.has_value());
  EXPECT_NE(list.error().message.find("GET /api/v1/configmaps: reading the response"), std::string::npos)
      << list.error().message;
  EXPECT_EQ(items, 1);
  EXPECT_EQ(server.requests().size(), 1u);

  // The same break on a plain GET is retried: the test above would see a second request if get_list retried.
  HttpsTestServer again(serving, chunked_list({R"({"items":[{"a":1},{"b")"}, true));
  RestClient plain(config_for(again), options());
  EXPECT_FALSE(plain.get_json("/api/v1/configmaps").has_value());
  EXPECT_GT(again.requests().size(), 1u);
}

// A refusal is a Status error, as for get_json; an item the caller refuses ends the list with its error.
TEST_F(RestClientPolicy, GetListTellsARefusalOrTheCallersError) {
  constexpr const char* kForbidden = R"({"kind":"Status","status":"Failure","message":"configmaps is forbidden",)"
                                     R"("reason":"Forbidden","code":403})";
  HttpsTestServer refusing(serving, answer_in_order({{403, kForbidden, {}}}));
  RestClient client(config_for(refusing), options());
  auto none = [](std::string_view, std::string_view, std::string_view) { return Result<void>{}; };
  auto refused = client.get_list("/api/v1/configmaps", none);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().http_status, 403);
  EXPECT_NE(refused.error().message.find("configmaps is forbidden"), std::string::npos) << refused.error().message;

  HttpsTestServer server(serving, chunked_list({R"({"items":[{"a":1}],"metadata":{"resourceVersion":"1"}})"}, false));
  RestClient lister(config_for(server), options());
  auto full = lister.get_list("/api/v1/configmaps", [](std::string_view, std::string_view, std::string_view) {
    return Result<void>(fail("item 0: no room"));
  });
  ASSERT_FALSE(full.has_value());
  EXPECT_EQ(full.error().message, "GET /api/v1/configmaps: item 0: no room");
  EXPECT_EQ(server.requests().size(), 1u);
}
