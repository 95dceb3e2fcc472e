#include "client/tls_connection.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/x509.h>
#include <sys/socket.h>

#include "client/tls_context.hpp"

namespace cfo::client {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;

TlsConnection::TlsConnection(asio::io_context& ioc, asio::ssl::context& tls) : ioc_(ioc), stream_(ioc, tls) {}

bool is_dropped_connection(const boost::system::error_code& ec) {
  namespace http = beast::http;
  return ec == asio::error::eof || ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
         ec == asio::error::connection_aborted || ec == asio::ssl::error::stream_truncated ||
         ec == http::error::end_of_stream || ec == http::error::partial_message;
}

std::string describe_transport_error(const boost::system::error_code& ec, std::chrono::milliseconds timeout_ms) {
  if (ec == beast::error::timeout) return "timed out after " + std::to_string(timeout_ms.count()) + " ms";
  return ec.message();
}

namespace {

/// TCP keepalive: after kKeepaliveIdleS seconds without traffic the kernel probes the peer every
/// kKeepaliveIntervalS seconds and resets the connection after kKeepaliveProbes unanswered probes, so that a peer
/// that vanished (node gone, NAT entry dropped) ends a blocked read in about a minute even when the stream may
/// lawfully stay silent longer (a watch without changes). client-go gets the same from HTTP/2 pings.
constexpr int kKeepaliveIdleS = 30;
constexpr int kKeepaliveIntervalS = 10;
constexpr int kKeepaliveProbes = 3;

void enable_keepalive(tcp::socket& socket) {
  boost::system::error_code ignored;
  socket.set_option(asio::socket_base::keep_alive(true), ignored);
  const int fd = socket.native_handle();
  // Best effort: a failure leaves the system defaults.
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &kKeepaliveIdleS, sizeof kKeepaliveIdleS);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &kKeepaliveIntervalS, sizeof kKeepaliveIntervalS);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &kKeepaliveProbes, sizeof kKeepaliveProbes);
}

}  // namespace

Result<void> TlsConnection::open(const ServerUrl& url, bool verify, std::chrono::milliseconds timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + timeout_ms;
  const std::string where = url.host_header();

  // Name resolution is not covered by tcp_stream's timer: a steady_timer cancels it at the deadline.
  tcp::resolver resolver(ioc_);
  tcp::resolver::results_type endpoints;
  asio::steady_timer resolve_timer(ioc_, deadline);
  bool resolve_timed_out = false;
  resolve_timer.async_wait([&](boost::system::error_code ec) {
    if (!ec) {
      resolve_timed_out = true;
      resolver.cancel();
    }
  });
  auto ec = run_op(ioc_, [&](auto handler) {
    resolver.async_resolve(url.host, url.port,
                           [&endpoints, handler](boost::system::error_code e, tcp::resolver::results_type r) mutable {
                             endpoints = std::move(r);
                             handler(e);
                           });
  });
  resolve_timer.cancel();
  if (resolve_timed_out)
    return fail("resolve " + url.host + ": timed out after " + std::to_string(timeout_ms.count()) + " ms");
  if (ec) return fail("resolve " + url.host + ": " + ec.message());

  auto& tcp_layer = beast::get_lowest_layer(stream_);
  tcp_layer.expires_at(deadline);
  ec = run_op(ioc_, [&](auto handler) { tcp_layer.async_connect(endpoints, handler); });
  if (ec) return fail("connect " + where + ": " + describe_transport_error(ec, timeout_ms));

  enable_keepalive(tcp_layer.socket());
  // Requests are small writes answered at once: without TCP_NODELAY, Nagle's algorithm holds a request's last
  // segment until the peer's delayed ACK (about 40 ms per request). Go's net package sets it on every connection.
  boost::system::error_code nodelay_ec;
  tcp_layer.socket().set_option(tcp::no_delay(true), nodelay_ec);

  if (auto prepared = prepare_tls_session(stream_.native_handle(), url, verify); !prepared) return prepared;
  tcp_layer.expires_at(deadline);
  ec = run_op(ioc_, [&](auto handler) { stream_.async_handshake(asio::ssl::stream_base::client, handler); });
  if (ec) {
    std::string msg = "TLS handshake with " + where + ": " + describe_transport_error(ec, timeout_ms);
    long verify_result = SSL_get_verify_result(stream_.native_handle());
    if (verify && verify_result != X509_V_OK)
      msg += " (certificate check: " + std::string(X509_verify_cert_error_string(verify_result)) + ")";
    return fail(msg);
  }
  return {};
}

void TlsConnection::close() {
  boost::system::error_code ignored;
  beast::get_lowest_layer(stream_).socket().shutdown(tcp::socket::shutdown_both, ignored);
  beast::get_lowest_layer(stream_).close();
}

}  // namespace cfo::client
