#pragma once
// One HTTPS connection driven step by step on the calling thread: every step is an asynchronous Asio/Beast
// operation with a deadline, run to completion on a private io_context.
#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include <chrono>
#include <optional>
#include <string>

#include "client/server_url.hpp"
#include "core/error.hpp"

namespace cfo::client {

/// Starts one asynchronous operation through `start(handler)` and runs `ioc` on the calling thread until that
/// handler has been called; other handlers that are ready meanwhile (a posted close, a timer) run too.
/// Returns the operation's error code (operation_aborted if the io_context ran out of work first).
template <class Start>
boost::system::error_code run_op(boost::asio::io_context& ioc, Start&& start) {
  std::optional<boost::system::error_code> result;
  start([&result](boost::system::error_code ec, auto&&...) { result = ec; });
  ioc.restart();
  while (!result && ioc.run_one() > 0) {
  }
  return result.value_or(boost::asio::error::operation_aborted);
}

/// A TLS stream over a Beast tcp_stream whose timeouts come from tcp_stream::expires_after.
class TlsConnection {
 public:
  using Stream = boost::asio::ssl::stream<boost::beast::tcp_stream>;

  TlsConnection(boost::asio::io_context& ioc, boost::asio::ssl::context& tls);

  /// Resolves `url`, connects (trying each address) and completes the TLS handshake, all within `timeout_ms`.
  /// `verify` enables the host/IP check of prepare_tls_session. Errors say which phase failed; a failed
  /// certificate check carries OpenSSL's verification reason.
  Result<void> open(const ServerUrl& url, bool verify, std::chrono::milliseconds timeout_ms);

  /// Closes the socket; pending operations complete with operation_aborted. Call on the io_context's thread
  /// (e.g. from a handler posted to it).
  void close();

  Stream& stream() { return stream_; }
  boost::asio::io_context& ioc() { return ioc_; }

 private:
  boost::asio::io_context& ioc_;
  Stream stream_;
};

/// True for the errors of a connection that the peer (or something in between) reset or closed: EOF, reset,
/// broken pipe, a TLS stream cut without close_notify, an HTTP message cut short. client-go's IsProbableEOF and
/// IsConnectionReset class; timeouts and refused connections are not in it.
bool is_dropped_connection(const boost::system::error_code& ec);

/// Describes a transport error code for messages; a Beast timeout becomes "timed out after N ms".
std::string describe_transport_error(const boost::system::error_code& ec, std::chrono::milliseconds timeout_ms);

}  // namespace cfo::client
