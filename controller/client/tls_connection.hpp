#pragma once
// One HTTPS connection on a blocking socket, driven by the calling thread: OpenSSL reads and writes the socket
// itself, a read or a write waits at most the timeout set with set_io_timeout (SO_RCVTIMEO / SO_SNDTIMEO), and
// another thread can end a blocked call with interrupt(). It is a Beast SyncReadStream and SyncWriteStream, so
// http::write / http::read_some drive it. A request costs one write and, per burst of response bytes, one read
// system call: no reactor, no timer per operation.
#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/system/error_code.hpp>
#include <boost/system/system_error.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "client/server_url.hpp"
#include "core/error.hpp"

namespace cfo::client {

/// A TLS client connection over a blocking TCP socket.
class TlsConnection {
 public:
  /// `tls` must outlive the connection (PooledConnection holds both).
  explicit TlsConnection(boost::asio::ssl::context& tls);
  ~TlsConnection();
  TlsConnection(const TlsConnection&) = delete;
  TlsConnection& operator=(const TlsConnection&) = delete;

  /// Resolves `url` (no lookup for an IP literal), connects (trying each address) and completes the TLS handshake,
  /// all within `timeout_ms`. `verify` enables the host/IP check of prepare_tls_session. Errors say which phase
  /// failed; a failed certificate check carries OpenSSL's verification reason. Sets TCP_NODELAY and TCP keepalive.
  Result<void> open(const ServerUrl& url, bool verify, std::chrono::milliseconds timeout_ms);

  /// How long each later read or write may wait for the peer before it fails with beast::error::timeout (per
  /// call, not per request: a response that keeps arriving is read to its end). A setsockopt only when it changes.
  void set_io_timeout(std::chrono::milliseconds timeout);

  /// Ends the connection's current and later reads and writes (they fail; open() gives up). Safe from any thread
  /// while the connection exists: it shuts the socket down (shutdown(2)) and never closes the descriptor.
  void interrupt();

  /// Closes the socket and frees the TLS session. Call on the thread that uses the connection.
  void close();

  /// The socket's descriptor (-1 when not open), for socket options.
  int native_handle() const { return fd_.load(); }

  /// SyncReadStream: reads into the first non-empty buffer; returns the bytes read (0 with `ec` set on failure).
  /// Errors: asio::error::eof (close_notify), asio::ssl::error::stream_truncated (closed without it), a system
  /// error (reset...), beast::error::timeout, asio::error::operation_aborted after interrupt().
  template <class MutableBufferSequence>
  std::size_t read_some(const MutableBufferSequence& buffers, boost::system::error_code& ec) {
    for (auto it = boost::asio::buffer_sequence_begin(buffers); it != boost::asio::buffer_sequence_end(buffers); ++it) {
      boost::asio::mutable_buffer b(*it);
      if (b.size() > 0) return read_into(b.data(), b.size(), ec);
    }
    ec = {};
    return 0;
  }
  /// The same; a failure throws boost::system::system_error.
  template <class MutableBufferSequence>
  std::size_t read_some(const MutableBufferSequence& buffers) {
    boost::system::error_code ec;
    return or_throw(read_some(buffers, ec), ec);
  }

  /// SyncWriteStream: writes the buffers as one TLS record when together they are at most kCoalesceBytes (an HTTP
  /// header and a small body leave in one segment), else the first non-empty one. Returns the bytes written.
  /// Errors as read_some.
  template <class ConstBufferSequence>
  std::size_t write_some(const ConstBufferSequence& buffers, boost::system::error_code& ec) {
    const auto begin = boost::asio::buffer_sequence_begin(buffers);
    const auto end = boost::asio::buffer_sequence_end(buffers);
    const std::size_t total = boost::asio::buffer_size(buffers);
    boost::asio::const_buffer first;
    std::size_t non_empty = 0;
    for (auto it = begin; it != end; ++it) {
      boost::asio::const_buffer b(*it);
      if (b.size() == 0) continue;
      if (non_empty++ == 0) first = b;
    }
    if (non_empty <= 1 || total > kCoalesceBytes) return write_from(first.data(), first.size(), ec);
    std::string joined;
    joined.reserve(total);
    for (auto it = begin; it != end; ++it) {
      boost::asio::const_buffer b(*it);
      joined.append(static_cast<const char*>(b.data()), b.size());
    }
    return write_from(joined.data(), joined.size(), ec);
  }
  /// The same; a failure throws boost::system::system_error.
  template <class ConstBufferSequence>
  std::size_t write_some(const ConstBufferSequence& buffers) {
    boost::system::error_code ec;
    return or_throw(write_some(buffers, ec), ec);
  }

  /// Largest write that is copied into one buffer to leave as one TLS record.
  static constexpr std::size_t kCoalesceBytes = std::size_t{64} * 1024;

 private:
  static std::size_t or_throw(std::size_t n, const boost::system::error_code& ec) {
    if (ec) throw boost::system::system_error(ec);
    return n;
  }
  std::size_t read_into(void* data, std::size_t size, boost::system::error_code& ec);
  std::size_t write_from(const void* data, std::size_t size, boost::system::error_code& ec);
  /// SSL_write (`writing`) or SSL_read of at most `size` bytes at `data`, made again after EINTR; the bytes moved
  /// (0 with `ec` set on failure, or for `size` 0).
  std::size_t transfer(bool writing, void* data, std::size_t size, boost::system::error_code& ec);
  /// The error of a failed SSL_read/SSL_write/SSL_connect that returned `ret`, with errno `saved_errno`.
  boost::system::error_code error_of(int ret, int saved_errno);
  /// Publishes `fd` for interrupt(); false (and `fd` closed) when interrupt() came first.
  bool adopt_socket(int fd);
  /// Unpublishes and closes the socket, if any.
  void close_socket();
  /// Connects a new non-blocking socket (published as it is made) to the first of `endpoints` that answers before
  /// `deadline`. Errors: the last address's, "timed out after N ms", "cancelled" after interrupt().
  Result<void> connect_any(const std::vector<boost::asio::ip::tcp::endpoint>& endpoints,
                           std::chrono::steady_clock::time_point deadline, const std::string& where,
                           std::chrono::milliseconds timeout_ms);

  boost::asio::ssl::context& tls_;
  SSL* ssl_ = nullptr;
  std::mutex fd_mu_;  // interrupt() against close(): a closed descriptor's number may be reused at once
  std::atomic<int> fd_{-1};
  std::atomic<bool> interrupted_{false};
  long io_timeout_ms_ = -1;  // what SO_RCVTIMEO/SO_SNDTIMEO hold; -1: not set
};

/// True for the errors of a connection that the peer (or something in between) reset or closed: EOF, reset,
/// broken pipe, a TLS stream cut without close_notify, an HTTP message cut short. client-go's IsProbableEOF and
/// IsConnectionReset class; timeouts and refused connections are not in it.
bool is_dropped_connection(const boost::system::error_code& ec);

/// Describes a transport error code for messages; a Beast timeout becomes "timed out after N ms".
std::string describe_transport_error(const boost::system::error_code& ec, std::chrono::milliseconds timeout_ms);

}  // namespace cfo::client
