#include "client/tls_connection.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/error.hpp>
#include <openssl/x509.h>

#include "client/tls_context.hpp"

namespace cfo::client {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;

TlsConnection::TlsConnection(asio::io_context& ioc, asio::ssl::context& tls) : ioc_(ioc), stream_(ioc, tls) {}

std::string describe_transport_error(const boost::system::error_code& ec, std::chrono::milliseconds timeout_ms) {
  if (ec == beast::error::timeout) return "timed out after " + std::to_string(timeout_ms.count()) + " ms";
  return ec.message();
}

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
