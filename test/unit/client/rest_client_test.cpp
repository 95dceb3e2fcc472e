// Round trips of RestClient against a real HTTPS server on 127.0.0.1 with certificates made at test time.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "client/rest_client.hpp"
#include "client/server_url.hpp"
#include "client/tls_connection.hpp"
#include "client/tls_context.hpp"
#include "core/json.hpp"
#include "https_test_server.hpp"
#include "temp_dir.hpp"

using namespace cfo;
using namespace cfo::client;
using namespace cfo::client::testing;
using namespace std::chrono_literals;

namespace {

constexpr const char* kNotFound = R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
                                  R"("message":"rayclusters.ray.io \"demo\" not found","reason":"NotFound",)"
                                  R"("details":{"name":"demo","group":"ray.io","kind":"rayclusters"},"code":404})";

class RestClientTls : public ::testing::Test {
 protected:
  TestCa ca{"test-ca"};
  TestCert serving = ca.issue("kube-apiserver", {"IP:127.0.0.1", "DNS:localhost"});

  ClientConfig config_for(const HttpsTestServer& server) const {
    ClientConfig cfg;
    cfg.server = server.url();
    cfg.ca_pem = ca.cert_pem();
    cfg.bearer_token = "secret-token";
    return cfg;
  }
  static RestClientTimeouts quick() { return {2000ms, 5000ms, 5000ms}; }
};

json::Document parse_or_die(const std::string& text) {
  auto d = json::parse(text);
  EXPECT_TRUE(d.has_value());
  return d ? std::move(*d) : json::Document{};
}

}  // namespace

TEST_F(RestClientTls, GetSendsBearerTokenAndStandardHeaders) {
  HttpsTestServer server(serving,
                         [](ServerExchange& x) { x.respond(200, R"({"kind":"Namespace","metadata":{"name":"a"}})"); });
  RestClient client(config_for(server), quick());
  auto doc = client.get_json("/api/v1/namespaces/a");
  ASSERT_TRUE(doc.has_value()) << doc.error().message;
  EXPECT_EQ(json::get_string(*doc, "kind"), "Namespace");

  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "GET");
  EXPECT_EQ(reqs[0].target, "/api/v1/namespaces/a");
  EXPECT_EQ(reqs[0].header("authorization"), "Bearer secret-token");
  EXPECT_EQ(reqs[0].header("user-agent"), "codeflare-operator/0.1");
  EXPECT_EQ(reqs[0].header("accept"), "application/json");
  EXPECT_EQ(reqs[0].header("host"), "127.0.0.1:" + std::to_string(server.port()));
}

// with_accept: the copy's requests and watches ask for what it was given (here the metadata-only forms the CRD
// informer uses); the client it was made from still asks for application/json.
TEST_F(RestClientTls, WithAcceptSetsTheAcceptHeaderOfItsRequestsAndWatchesOnly) {
  HttpsTestServer server(serving, [](ServerExchange& x) {
    if (x.request().target.find("watch=1") == std::string::npos) {
      x.respond(200, R"({"kind":"PartialObjectMetadataList","items":[]})");
      return;
    }
    x.start_chunked(200);
    x.send_chunk("{\"type\":\"ADDED\",\"object\":{}}\n");
    x.end_chunked();
  });
  RestClient client(config_for(server), quick());
  ASSERT_TRUE(
      client.with_accept(kMetadataListAccept).get_json("/apis/apiextensions.k8s.io/v1/customresourcedefinitions"));
  StopToken stop;
  ASSERT_TRUE(client.with_accept(kMetadataAccept)
                  .watch(
                      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?watch=1",
                      [](std::string_view) { return true; }, stop));
  ASSERT_TRUE(client.get_json("/api/v1/namespaces"));
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[0].header("accept"),
            "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json");
  EXPECT_EQ(reqs[1].header("accept"), "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json");
  EXPECT_EQ(reqs[2].header("accept"), "application/json");
}

TEST_F(RestClientTls, ApplySendsServerSideApplyPatch) {
  HttpsTestServer server(serving, [](ServerExchange& x) { x.respond(200, x.request().body); });
  RestClient client(config_for(server), quick());
  auto obj = parse_or_die(R"({"apiVersion":"ray.io/v1","kind":"RayCluster","metadata":{"name":"demo"}})");
  const std::string path = "/apis/ray.io/v1/namespaces/team-a/rayclusters/demo";

  auto out = client.apply(path, obj);
  ASSERT_TRUE(out.has_value()) << out.error().message;
  EXPECT_EQ(json::get_string(*out, "kind"), "RayCluster");

  WriteOptions dry;
  dry.field_manager = "my manager";
  dry.force = false;
  dry.dry_run = true;
  ASSERT_TRUE(client.apply(path + "/status", obj, dry).has_value());

  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].method, "PATCH");
  EXPECT_EQ(reqs[0].target, path + "?fieldManager=codeflare-operator&force=true");
  EXPECT_EQ(reqs[0].header("content-type"), "application/apply-patch+yaml");
  auto sent = parse_or_die(reqs[0].body);
  EXPECT_TRUE(sent == obj);
  EXPECT_EQ(reqs[1].target, path + "/status?fieldManager=my%20manager&dryRun=All");
}

TEST_F(RestClientTls, MergePatchAndCreateUseTheirContentTypesAndNeverForce) {
  HttpsTestServer server(serving, [](ServerExchange& x) { x.respond(x.request().method == "POST" ? 201 : 200, "{}"); });
  RestClient client(config_for(server), quick());
  auto patch = parse_or_die(R"({"metadata":{"labels":{"a":"b"}}})");
  ASSERT_TRUE(client.merge_patch("/api/v1/namespaces/x/configmaps/c?pretty=1", patch).has_value());
  ASSERT_TRUE(client.create("/api/v1/namespaces/x/configmaps", patch).has_value());

  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].method, "PATCH");
  EXPECT_EQ(reqs[0].target, "/api/v1/namespaces/x/configmaps/c?pretty=1&fieldManager=codeflare-operator");
  EXPECT_EQ(reqs[0].header("content-type"), "application/merge-patch+json");
  EXPECT_EQ(reqs[1].method, "POST");
  EXPECT_EQ(reqs[1].target, "/api/v1/namespaces/x/configmaps?fieldManager=codeflare-operator");
  EXPECT_EQ(reqs[1].header("content-type"), "application/json");
}

TEST_F(RestClientTls, NotFoundStatusBecomesAnError) {
  HttpsTestServer server(serving, [](ServerExchange& x) { x.respond(404, kNotFound); });
  RestClient client(config_for(server), quick());
  auto doc = client.get_json("/apis/ray.io/v1/namespaces/a/rayclusters/demo");
  ASSERT_FALSE(doc.has_value());
  EXPECT_EQ(doc.error().http_status, 404);
  EXPECT_EQ(doc.error().reason, "NotFound");
  EXPECT_EQ(doc.error().message, "rayclusters.ray.io \"demo\" not found");
}

// A DELETE with the uid as precondition tells deleted (2xx) from gone (404) or replaced (409); the rest is an Error.
TEST_F(RestClientTls, RemoveExactlySendsTheUidAndTellsWhatHappened) {
  std::atomic<int> calls{0};
  HttpsTestServer server(serving, [&](ServerExchange& x) {
    switch (calls++) {
      case 0:
        x.respond(200, R"({"kind":"Status","status":"Success"})");
        break;
      case 1:
        x.respond(404, kNotFound);
        break;
      case 2:
        x.respond(409, R"({"kind":"Status","reason":"Conflict","message":"Precondition failed: UID","code":409})");
        break;
      default:
        x.respond(403, R"({"kind":"Status","reason":"Forbidden","message":"no","code":403})");
    }
  });
  RestClient client(config_for(server), quick());
  const std::string path = "/apis/kueue.x-k8s.io/v1beta2/namespaces/a/localqueues/q";
  auto deleted = client.remove_exactly(path, "u-1");
  ASSERT_TRUE(deleted.has_value());
  EXPECT_TRUE(*deleted);
  EXPECT_EQ(client.remove_exactly(path, "u-1").value_or(true), false) << "gone";
  EXPECT_EQ(client.remove_exactly(path, "u-1").value_or(true), false) << "another object now";
  auto refused = client.remove_exactly(path, "u-1");
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().http_status, 403);
  const auto requests = server.requests();  // a copy, taken under the server's lock
  const auto& first = requests.at(0);
  EXPECT_EQ(first.method, "DELETE");
  json::Document body = json::parse(first.body).value();
  EXPECT_EQ(json::string_at(body, "preconditions.uid"), "u-1");
  EXPECT_EQ(json::string_at(body, "kind"), "DeleteOptions");
}

TEST_F(RestClientTls, RemoveIgnoresNotFoundButReportsConflicts) {
  std::atomic<int> calls{0};
  HttpsTestServer server(serving, [&](ServerExchange& x) {
    if (calls++ == 0)
      x.respond(404, kNotFound);
    else
      x.respond(409, R"({"kind":"Status","reason":"Conflict","message":"the object has been modified","code":409})");
  });
  RestClient client(config_for(server), quick());
  EXPECT_TRUE(client.remove("/apis/ray.io/v1/namespaces/a/rayclusters/demo").has_value());
  auto second = client.remove("/apis/ray.io/v1/namespaces/a/rayclusters/demo");
  ASSERT_FALSE(second.has_value());
  EXPECT_TRUE(second.error().is_conflict());
  EXPECT_EQ(server.requests().at(0).method, "DELETE");
}

TEST_F(RestClientTls, RetryAfterIsParsed) {
  HttpsTestServer server(serving, [](ServerExchange& x) {
    x.respond(429, R"({"kind":"Status","reason":"TooManyRequests","message":"slow down","code":429})",
              {{"Retry-After", "7"}});
  });
  RestClientOptions no_retries;
  no_retries.timeouts = quick();
  no_retries.retry.max_retries = 0;  // retries have tests of their own (rest_client_retry_test.cpp)
  RestClient client(config_for(server), no_retries);
  auto r = client.request("GET", "/api/v1/pods");
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->status, 429u);
  EXPECT_EQ(r->retry_after_seconds, 7);
  EXPECT_EQ(status_error(*r).reason, "TooManyRequests");
}

TEST_F(RestClientTls, RejectsAServerSignedByAnotherCa) {
  HttpsTestServer server(serving, [](ServerExchange& x) { x.respond(200, "{}"); });
  TestCa other("other-ca");
  ClientConfig cfg = config_for(server);
  cfg.ca_pem = other.cert_pem();
  RestClient client(cfg, quick());
  auto r = client.get_json("/version");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("TLS handshake"), std::string::npos) << r.error().message;
  EXPECT_TRUE(server.requests().empty());

  cfg.ca_pem.clear();
  cfg.insecure_skip_tls_verify = true;
  RestClient insecure(cfg, quick());
  EXPECT_TRUE(insecure.get_json("/version").has_value());
}

TEST_F(RestClientTls, ChecksTheIpAddressInTheCertificate) {
  TestCert elsewhere = ca.issue("somewhere-else", {"IP:10.1.2.3", "DNS:example.invalid"});
  HttpsTestServer server(elsewhere, [](ServerExchange& x) { x.respond(200, "{}"); });
  RestClient client(config_for(server), quick());
  auto r = client.get_json("/version");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("IP address mismatch"), std::string::npos) << r.error().message;
}

TEST_F(RestClientTls, VerifiesDnsNamesToo) {
  HttpsTestServer server(serving, [](ServerExchange& x) { x.respond(200, R"({"ok":true})"); });
  ClientConfig cfg = config_for(server);
  cfg.server = "https://localhost:" + std::to_string(server.port());
  RestClient client(cfg, quick());
  auto r = client.get_json("/healthz");
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(server.requests().at(0).header("host"), "localhost:" + std::to_string(server.port()));
}

TEST_F(RestClientTls, ImpersonationHeadersGoWithEveryRequest) {
  HttpsTestServer server(serving, [](ServerExchange& x) { x.respond(200, "{}"); });
  ClientConfig cfg = config_for(server);
  RestClient plain(cfg, quick());
  ASSERT_TRUE(plain.get_json("/version").has_value());
  EXPECT_EQ(server.requests().at(0).header("impersonate-user"), "");
  cfg.impersonate_user = "nobody";
  cfg.impersonate_groups = {"team-a"};
  cfg.impersonate_extra = {{"scopes.example.com/level", {"low"}}};
  RestClient as_nobody(cfg, quick());
  ASSERT_TRUE(as_nobody.get_json("/version").has_value());
  const auto reqs = server.requests();  // a copy: keep it alive while reading
  const auto& r = reqs.at(1);
  EXPECT_EQ(r.header("authorization"), "Bearer secret-token");
  EXPECT_EQ(r.header("impersonate-user"), "nobody");
  EXPECT_EQ(r.header("impersonate-group"), "team-a");
  EXPECT_EQ(r.header("impersonate-extra-scopes.example.com%2flevel"), "low");
}

TEST_F(RestClientTls, PresentsTheClientCertificate) {
  TestCa client_ca("client-ca");
  TestCert admin = client_ca.issue("kubernetes-admin", {});
  HttpsTestServer server(serving, [](ServerExchange& x) { x.respond(200, "{}"); }, client_ca.cert_pem());
  ClientConfig cfg = config_for(server);
  cfg.bearer_token.clear();
  cfg.client_cert_pem = admin.cert_pem;
  cfg.client_key_pem = admin.key_pem;
  RestClient with_cert(cfg, quick());
  auto ok = with_cert.get_json("/version");
  ASSERT_TRUE(ok.has_value()) << ok.error().message;
  EXPECT_EQ(server.requests().at(0).header("authorization"), "");

  cfg.client_cert_pem.clear();
  cfg.client_key_pem.clear();
  RestClient without(cfg, quick());
  EXPECT_FALSE(without.get_json("/version").has_value());
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(RestClientTls, BadTlsMaterialIsReportedOnEveryCall) {
  ClientConfig cfg;
  cfg.server = "https://127.0.0.1:1";
  cfg.ca_pem = "not a certificate";
  RestClient client(cfg, quick());
  auto r = client.get_json("/version");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("certificate authority"), std::string::npos) << r.error().message;

  cfg.ca_pem.clear();
  cfg.server = "http://127.0.0.1:1";
  RestClient plain(cfg, quick());
  auto p = plain.get_json("/version");
  ASSERT_FALSE(p.has_value());
  EXPECT_NE(p.error().message.find("https"), std::string::npos) << p.error().message;
}

TEST_F(RestClientTls, PathPrefixOfTheServerUrlIsKept) {
  HttpsTestServer server(serving, [](ServerExchange& x) { x.respond(200, "{}"); });
  ClientConfig cfg = config_for(server);
  cfg.server += "/k8s/clusters/c-1";
  RestClient client(cfg, quick());
  ASSERT_TRUE(client.get_json("/api/v1/namespaces").has_value());
  EXPECT_EQ(server.requests().at(0).target, "/k8s/clusters/c-1/api/v1/namespaces");
}

TEST_F(RestClientTls, ReadsTheBearerTokenFile) {
  TempDir dir;
  HttpsTestServer server(serving, [](ServerExchange& x) { x.respond(200, "{}"); });
  ClientConfig cfg = config_for(server);
  cfg.bearer_token.clear();
  cfg.bearer_token_file = dir.write("token", "projected-token\n");
  RestClient client(cfg, quick());
  ASSERT_TRUE(client.get_json("/version").has_value());
  EXPECT_EQ(server.requests().at(0).header("authorization"), "Bearer projected-token");
}

TEST_F(RestClientTls, ConnectionsUseTcpKeepalive) {
  HttpsTestServer server(serving, [](ServerExchange& x) { x.respond(200, "{}"); });
  auto url = parse_server_url(server.url());
  ASSERT_TRUE(url.has_value());
  auto tls = make_tls_context(ca.cert_pem(), false, "", "");
  ASSERT_TRUE(tls.has_value());
  TlsConnection conn(**tls);
  ASSERT_TRUE(conn.open(*url, true, 2000ms).has_value());
  const int fd = conn.native_handle();
  int on = 0, idle = 0, interval = 0, probes = 0;
  socklen_t len = sizeof(int);
  ASSERT_EQ(::getsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, &len), 0);
  ::getsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, &len);
  ::getsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, &len);
  ::getsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &probes, &len);
  EXPECT_EQ(on, 1);
  EXPECT_EQ(idle, 30);
  EXPECT_EQ(interval, 10);
  EXPECT_EQ(probes, 3);
  conn.close();
}

TEST_F(RestClientTls, ConnectionRefusedIsATransportError) {
  unsigned short port;
  {
    HttpsTestServer gone(serving, [](ServerExchange&) {});
    port = gone.port();
  }
  ClientConfig cfg;
  cfg.server = "https://127.0.0.1:" + std::to_string(port);
  cfg.ca_pem = ca.cert_pem();
  RestClient client(cfg, quick());
  auto r = client.request("GET", "/version");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("connect"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().http_status, 0);
}

TEST_F(RestClientTls, SlowServerTimesOut) {
  HttpsTestServer server(serving, [](ServerExchange& x) { x.wait_for_client_close(5s); });
  RestClient client(config_for(server), RestClientTimeouts{2000ms, 300ms, 5000ms});
  auto start = std::chrono::steady_clock::now();
  auto r = client.get_json("/slow");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("timed out"), std::string::npos) << r.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
}

// The fifteenth user trial: a 1.3 MB page of LocalQueues over a 15 KB/s link was cut at the 60 s request timeout,
// every time, so the list never completed. The timeout bounds each read, not the whole response.
TEST_F(RestClientTls, AResponseStillArrivingIsReadToItsEnd) {
  HttpsTestServer server(serving, [](ServerExchange& x) {
    x.start_chunked(200);
    x.send_chunk("{\"items\":[");
    for (int i = 0; i < 8; ++i) {
      std::this_thread::sleep_for(100ms);  // 800 ms in all, each gap well under the 300 ms timeout
      x.send_chunk(i == 0 ? "1" : ",1");
    }
    x.send_chunk("]}");
    x.end_chunked();
  });
  RestClient client(config_for(server), RestClientTimeouts{2000ms, 300ms, 5000ms});
  auto r = client.get_json("/slow-list");
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ((*r)["items"].Size(), 8u);
}

// --- watch ------------------------------------------------------------------------------------------------------

TEST_F(RestClientTls, WatchDeliversLinesSplitAcrossChunks) {
  HttpsTestServer server(serving, [](ServerExchange& x) {
    x.start_chunked(200);
    x.send_chunk(R"({"type":"ADDED","object":{"n":1}})"
                 "\n"
                 R"({"type":"MOD)");
    x.send_chunk(R"(IFIED","object":{"n":2}})"
                 "\n\n");
    x.send_chunk(R"({"type":"DELETED",)");
    x.send_chunk(R"("object":{"n":3}})"
                 "\n");
    x.end_chunked();
  });
  RestClient client(config_for(server), quick());
  StopToken stop;
  std::vector<std::string> lines;
  auto r = client.watch(
      "/apis/ray.io/v1/rayclusters?watch=1",
      [&](std::string_view l) {
        lines.emplace_back(l);
        return true;
      },
      stop);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], R"({"type":"ADDED","object":{"n":1}})");
  EXPECT_EQ(lines[1], R"({"type":"MODIFIED","object":{"n":2}})");
  EXPECT_EQ(lines[2], R"({"type":"DELETED","object":{"n":3}})");
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].target, "/apis/ray.io/v1/rayclusters?watch=1");
  EXPECT_EQ(reqs[0].header("authorization"), "Bearer secret-token");
}

TEST_F(RestClientTls, WatchDeliversLinesWhileTheStreamIsOpen) {
  HttpsTestServer server(serving, [](ServerExchange& x) {
    x.start_chunked(200);
    x.send_chunk("{\"type\":\"ADDED\",\"object\":{}}\n");
    x.wait_for_client_close(10s);
  });
  RestClient client(config_for(server), quick());
  StopToken stop;
  int seen = 0;
  auto start = std::chrono::steady_clock::now();
  auto r = client.watch("/api/v1/pods?watch=1", [&](std::string_view) { return ++seen < 1; }, stop);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(seen, 1);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
}

TEST_F(RestClientTls, StopTokenEndsAHangingWatch) {
  std::atomic<bool> server_saw_close{false};
  HttpsTestServer server(serving, [&](ServerExchange& x) {
    x.start_chunked(200);
    x.send_chunk("{\"type\":\"BOOKMARK\",\"object\":{}}\n");
    server_saw_close = x.wait_for_client_close(10s);
  });
  RestClient client(config_for(server));  // default timeouts: the idle limit (90 s) must not be what ends it
  StopToken stop;
  std::promise<void> first_line;
  std::thread stopper([&] {
    first_line.get_future().wait();
    std::this_thread::sleep_for(100ms);  // let the watch block in its next read
    stop.request_stop();
  });
  int lines = 0;
  auto start = std::chrono::steady_clock::now();
  auto r = client.watch(
      "/api/v1/pods?watch=1",
      [&](std::string_view) {
        if (lines++ == 0) first_line.set_value();
        return true;
      },
      stop);
  auto elapsed = std::chrono::steady_clock::now() - start;
  stopper.join();
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(lines, 1);
  EXPECT_LT(elapsed, 3s);
  for (int i = 0; i < 100 && !server_saw_close; ++i) std::this_thread::sleep_for(20ms);
  EXPECT_TRUE(server_saw_close.load());
}

TEST_F(RestClientTls, StoppedTokenReturnsAtOnce) {
  HttpsTestServer server(serving, [](ServerExchange& x) { x.wait_for_client_close(10s); });
  RestClient client(config_for(server));
  StopToken stop;
  stop.request_stop();
  int lines = 0;
  auto start = std::chrono::steady_clock::now();
  auto r = client.watch("/api/v1/pods?watch=1", [&](std::string_view) { return ++lines > 0; }, stop);
  EXPECT_TRUE(r.has_value());
  EXPECT_EQ(lines, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
}

TEST_F(RestClientTls, SilentWatchIsReportedDead) {
  HttpsTestServer server(serving, [](ServerExchange& x) {
    x.start_chunked(200);
    x.send_chunk("{\"type\":\"ADDED\",\"object\":{}}\n");
    x.wait_for_client_close(10s);
  });
  RestClient client(config_for(server), RestClientTimeouts{2000ms, 5000ms, 300ms});
  StopToken stop;
  int lines = 0;
  auto start = std::chrono::steady_clock::now();
  auto r = client.watch("/api/v1/pods?watch=1", [&](std::string_view) { return ++lines > 0; }, stop);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(lines, 1);
  EXPECT_NE(r.error().message.find("no data for 300 ms"), std::string::npos) << r.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
}

TEST_F(RestClientTls, WatchErrorStatusBecomesAnError) {
  HttpsTestServer server(serving, [](ServerExchange& x) {
    x.respond(410, R"j({"kind":"Status","status":"Failure","message":"too old resource version: 1 (2)",)j"
                   R"j("reason":"Expired","code":410})j");
  });
  RestClient client(config_for(server), quick());
  StopToken stop;
  int lines = 0;
  auto r = client.watch("/api/v1/pods?watch=1&resourceVersion=1", [&](std::string_view) { return ++lines > 0; }, stop);
  ASSERT_FALSE(r.has_value());
  EXPECT_TRUE(r.error().is_gone());
  EXPECT_EQ(r.error().reason, "Expired");
  EXPECT_EQ(r.error().message, "too old resource version: 1 (2)");
  EXPECT_EQ(lines, 0);
}

TEST_F(RestClientTls, ConcurrentCallsFromSeveralThreads) {
  HttpsTestServer server(serving,
                         [](ServerExchange& x) { x.respond(200, "{\"target\":\"" + x.request().target + "\"}"); });
  RestClient client(config_for(server), quick());
  std::vector<std::thread> threads;
  threads.reserve(4);
  std::atomic<int> good{0};
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      std::string target = "/api/v1/namespaces/n" + std::to_string(i);
      auto r = client.get_json(target);
      if (r && json::get_string(*r, "target") == target) ++good;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(good.load(), 4);
}

TEST_F(RestClientTls, RejectsTargetsAndTokensThatWouldForgeHeaders) {
  HttpsTestServer server(serving, [](ServerExchange& x) { x.respond(200, "{}"); });
  RestClient client(config_for(server), quick());
  auto no_slash = client.request("GET", "api/v1/pods");
  ASSERT_FALSE(no_slash.has_value());
  EXPECT_NE(no_slash.error().message.find("must start with '/'"), std::string::npos);
  EXPECT_FALSE(client.request("GET", "/api/v1/pods HTTP/1.1\r\nX-Evil: 1").has_value());
  StopToken stop;
  EXPECT_FALSE(client.watch("pods?watch=1", [](std::string_view) { return true; }, stop).has_value());
  EXPECT_FALSE(client.request("BREW", "/coffee").has_value());

  ClientConfig cfg = config_for(server);
  cfg.bearer_token = "abc\r\nX-Evil: 1";
  RestClient forged(cfg, quick());
  auto r = forged.get_json("/version");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("line break"), std::string::npos);
  EXPECT_TRUE(server.requests().empty());
}
