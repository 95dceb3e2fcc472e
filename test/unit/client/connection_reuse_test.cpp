// Connection reuse and socket options of RestClient: what makes requests cheap for the apiserver and for us.
#include <gtest/gtest.h>

#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <csignal>
#include <sys/socket.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <memory>
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

  /// A connection to `server` that has sent "GET /" and not read the answer, its reads and writes limited to
  /// `io_timeout`; nullptr (with a test failure) when that did not work. The TLS context lives in the fixture.
  std::unique_ptr<TlsConnection> connection_after_a_get(const HttpsTestServer& server,
                                                        std::chrono::milliseconds io_timeout) {
    auto made = make_tls_context(ca.cert_pem(), false, "", "");
    auto url = parse_server_url(server.url());
    if (!made || !url) {
      ADD_FAILURE() << "no TLS context or URL";
      return nullptr;
    }
    client_tls = *made;
    auto conn = std::make_unique<TlsConnection>(*client_tls);
    if (auto opened = conn->open(*url, true, 2000ms); !opened) {
      ADD_FAILURE() << opened.error().message;
      return nullptr;
    }
    conn->set_io_timeout(io_timeout);
    namespace http = boost::beast::http;
    http::request<http::string_body> req{http::verb::get, "/", 11};
    req.set(http::field::host, url->host_header());
    boost::system::error_code ec;
    http::write(*conn, req, ec);
    if (ec) {
      ADD_FAILURE() << "sending: " << ec.message();
      return nullptr;
    }
    return conn;
  }
  std::shared_ptr<boost::asio::ssl::context> client_tls;
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
    three.reserve(3);
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
  TlsConnection conn(**tls);
  ASSERT_TRUE(conn.open(*url, true, 2000ms).has_value());
  int nodelay = 0, keepalive = 0;
  socklen_t len = sizeof(int);
  ASSERT_EQ(::getsockopt(conn.native_handle(), IPPROTO_TCP, TCP_NODELAY, &nodelay, &len), 0);
  ASSERT_EQ(::getsockopt(conn.native_handle(), SOL_SOCKET, SO_KEEPALIVE, &keepalive, &len), 0);
  EXPECT_EQ(nodelay, 1);
  EXPECT_EQ(keepalive, 1);
}

// Connections free OpenSSL's record buffers while they wait (a watch between events, a kept connection in the pool):
// SSL_MODE_RELEASE_BUFFERS on the context every connection is made from.
TEST_F(ConnectionReuse, ConnectionsReleaseTheirRecordBuffersWhileIdle) {
  auto tls = make_tls_context(ca.cert_pem(), false, "", "");
  ASSERT_TRUE(tls.has_value()) << tls.error().message;
  EXPECT_NE(SSL_CTX_get_mode((*tls)->native_handle()) & SSL_MODE_RELEASE_BUFFERS, 0);
}

// interrupt() from another thread ends a read that waits for an answer that never comes: a stopping watch or request
// does not sit out its read timeout.
TEST_F(ConnectionReuse, InterruptEndsABlockedReadFromAnotherThread) {
  HttpsTestServer server(serving, [](ServerExchange& x) { x.wait_for_client_close(10s); });
  auto conn = connection_after_a_get(server, 30s);
  ASSERT_TRUE(conn);
  boost::system::error_code ec;
  std::thread stopper([&conn] {
    std::this_thread::sleep_for(100ms);
    conn->interrupt();
  });
  std::array<char, 256> buf{};
  const std::size_t got = conn->read_some(boost::asio::buffer(buf), ec);
  stopper.join();
  EXPECT_EQ(got, 0u);
  EXPECT_EQ(ec, boost::asio::error::operation_aborted) << ec.message();
  // Later calls fail at once too.
  EXPECT_EQ(conn->write_some(boost::asio::buffer(std::string("x")), ec), 0u);
  EXPECT_EQ(ec, boost::asio::error::operation_aborted);
}

// Writing to a connection the server has closed fails with a dropped-connection error (EPIPE or a reset) instead of
// ending the process with SIGPIPE: OpenSSL writes the socket with write(2). (The test server's io_context ignores
// SIGPIPE when it starts, so the test puts the default back before the client opens its connection.)
TEST_F(ConnectionReuse, WritingToAConnectionTheServerClosedIsAnErrorNotASignal) {
  HttpsTestServer server(serving, [](ServerExchange& x) { x.close_connection(); });
  struct sigaction previous{};
  struct sigaction by_default{};
  by_default.sa_handler = SIG_DFL;
  sigemptyset(&by_default.sa_mask);
  ASSERT_EQ(::sigaction(SIGPIPE, &by_default, &previous), 0);
  auto conn = connection_after_a_get(server, 5s);
  ASSERT_TRUE(conn);
  boost::system::error_code ec;
  // The server has closed its end (FIN) once the socket reports it; the client writes on without reading, as a
  // request on a kept connection the server closed while idle does.
  pollfd closed{conn->native_handle(), POLLRDHUP, 0};
  ASSERT_EQ(::poll(&closed, 1, 5000), 1);
  const std::string chunk(std::size_t{64} * 1024, 'x');
  for (int i = 0; i < 64 && !ec; ++i) conn->write_some(boost::asio::buffer(chunk), ec);
  EXPECT_TRUE(is_dropped_connection(ec)) << ec.message();
  ::sigaction(SIGPIPE, &previous, nullptr);
}

// interrupt() also ends a TCP connect that the server does not answer (its accept queue is full, so the kernel drops
// the SYN): the stop does not wait for the connect timeout.
TEST_F(ConnectionReuse, InterruptEndsAConnectInProgress) {
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), len), 0);
  ASSERT_EQ(::listen(listener, 0), 0);
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  // One connection, never accepted, fills the queue.
  const int filler = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_EQ(::connect(filler, reinterpret_cast<sockaddr*>(&addr), len), 0);

  auto tls = make_tls_context(ca.cert_pem(), false, "", "");
  ASSERT_TRUE(tls.has_value()) << tls.error().message;
  auto url = parse_server_url("https://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)));
  ASSERT_TRUE(url.has_value());
  TlsConnection conn(**tls);
  std::thread stopper([&conn] {
    std::this_thread::sleep_for(200ms);
    conn.interrupt();
  });
  auto opened = conn.open(*url, true, 20s);
  stopper.join();
  ::close(filler);
  ::close(listener);
  ASSERT_FALSE(opened.has_value());
  EXPECT_NE(opened.error().message.find("cancelled"), std::string::npos) << opened.error().message;
}
