// Connection reuse and socket options of RestClient: what makes requests cheap for the apiserver and for us.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/stream_traits.hpp>

#include <openssl/ssl.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "client/rest_client.hpp"
#include "client/server_url.hpp"
#include "client/tls_connection.hpp"
#include "client/tls_context.hpp"
#include "https_test_server.hpp"
#include "test_certificates.hpp"

using namespace cfo;
using namespace cfo::client;
using namespace cfo::client::testing;
using namespace std::chrono_literals;

namespace {
class ConnectionReuse : public ::testing::Test {
 protected:
  TestCa ca{"test-ca"};
  TestCert serving = ca.issue("kube-apiserver", {"IP:127.0.0.1", "DNS:localhost"});
  ClientConfig config_for(const HttpsTestServer& server) const {
    ClientConfig cfg;
    cfg.server = server.url();
    cfg.ca_pem = ca.cert_pem();
    return cfg;
  }
};
}  // namespace

// Requests one after the other go over one kept-alive connection (one TCP connect and one TLS handshake in all).
TEST_F(ConnectionReuse, SequentialRequestsShareOneConnection) {
  HttpsTestServer server(serving, [](ServerExchange& x) { x.respond(200, "{}"); }, {}, /*keep_alive=*/true);
  RestClient client(config_for(server), RestClientTimeouts{2000ms, 5000ms, 5000ms});
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(client.get_json("/api/v1/namespaces").has_value());
  auto obj = json::parse(R"({"kind":"Event"})");
  ASSERT_TRUE(client.apply("/api/v1/namespaces/a/events/e", *obj).has_value());
  EXPECT_EQ(server.requests().size(), 6u);
  EXPECT_EQ(server.connections_served(), 1);
  // Copies of a client share its connections too.
  RestClient copy = client;
  ASSERT_TRUE(copy.get_json("/api/v1/namespaces").has_value());
  EXPECT_EQ(server.connections_served(), 1);
}

// Connections a burst opened and that then sit idle behind the one reused are closed once idle for 90 s (Go's
// IdleConnTimeout), at the next request: they do not stay open for good, each a TLS session here and a goroutine
// and buffers on the apiserver.
TEST_F(ConnectionReuse, ConnectionsIdleFor90SecondsAreClosedEvenWhenAnotherIsReused) {
  std::mutex mu;
  std::condition_variable cv;
  int waiting = 0;
  bool burst = true;
  HttpsTestServer server(
      serving,
      [&](ServerExchange& x) {
        std::unique_lock lock(mu);
        if (burst && ++waiting == 3) cv.notify_all();
        cv.wait_for(lock, 5s, [&] { return !burst || waiting == 3; });
        lock.unlock();
        x.respond(200, "{}");
      },
      {}, /*keep_alive=*/true);
  std::atomic<int64_t> offset_s{0};
  const auto start = std::chrono::steady_clock::now();
  RestClientOptions opts;
  opts.timeouts = RestClientTimeouts{2000ms, 5000ms, 5000ms};
  opts.now = [&] { return start + std::chrono::seconds(offset_s.load()); };
  RestClient client(config_for(server), opts);
  {
    std::vector<std::jthread> three;  // three at once: three connections, all kept
    for (int i = 0; i < 3; ++i) three.emplace_back([&] { EXPECT_TRUE(client.get_json("/api/v1/namespaces")); });
  }
  {
    std::lock_guard lock(mu);
    burst = false;
  }
  ASSERT_EQ(server.connections_served(), 3);
  offset_s = 60;
  ASSERT_TRUE(client.get_json("/api/v1/namespaces"));  // reuses the latest; the other two stay idle
  offset_s = 100;
  ASSERT_TRUE(client.get_json("/api/v1/namespaces"));  // 40 s idle: reused; the two idle for 100 s are closed
  EXPECT_EQ(server.connections_served(), 3) << "no new connection: the one reused was not expired";
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (server.connections_closed_by_client() < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  EXPECT_EQ(server.connections_closed_by_client(), 2);
  ASSERT_TRUE(client.get_json("/api/v1/namespaces"));
  EXPECT_EQ(server.connections_served(), 3) << "the one kept is still reused";
}

// A server that closes each connection after its answer (Connection: close, or an idle timeout that closed a kept
// connection) costs a new connection per request, and no request fails for it.
TEST_F(ConnectionReuse, AConnectionTheServerClosedIsReplacedWithoutAnError) {
  HttpsTestServer server(serving, [](ServerExchange& x) { x.respond(200, "{}"); });
  RestClient client(config_for(server), RestClientTimeouts{2000ms, 5000ms, 5000ms});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(client.get_json("/api/v1/namespaces").has_value());
  EXPECT_EQ(server.requests().size(), 3u);
  EXPECT_EQ(server.connections_served(), 3);
}

// Every connection the client opens has Nagle's algorithm off, as Go's net package does: a small request is not held
// back until the peer's delayed ACK.
TEST_F(ConnectionReuse, ConnectionsAreOpenedWithTcpNoDelay) {
  HttpsTestServer server(serving, [](ServerExchange& x) { x.respond(200, "{}"); });
  auto tls = make_tls_context(ca.cert_pem(), false, "", "");
  ASSERT_TRUE(tls.has_value()) << tls.error().message;
  auto url = parse_server_url(server.url());
  ASSERT_TRUE(url.has_value());
  boost::asio::io_context ioc;
  TlsConnection conn(ioc, **tls);
  ASSERT_TRUE(conn.open(*url, true, 2000ms).has_value());
  boost::asio::ip::tcp::no_delay option;
  boost::beast::get_lowest_layer(conn.stream()).socket().get_option(option);
  EXPECT_TRUE(option.value());
  boost::asio::socket_base::keep_alive keepalive;
  boost::beast::get_lowest_layer(conn.stream()).socket().get_option(keepalive);
  EXPECT_TRUE(keepalive.value());
}

// Connections free OpenSSL's record buffers while they wait (a watch between events, a kept connection in the pool):
// SSL_MODE_RELEASE_BUFFERS on the context every connection is made from.
TEST_F(ConnectionReuse, ConnectionsReleaseTheirRecordBuffersWhileIdle) {
  auto tls = make_tls_context(ca.cert_pem(), false, "", "");
  ASSERT_TRUE(tls.has_value()) << tls.error().message;
  EXPECT_NE(SSL_CTX_get_mode((*tls)->native_handle()) & SSL_MODE_RELEASE_BUFFERS, 0);
}
