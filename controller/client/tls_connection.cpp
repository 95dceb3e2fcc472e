#include "client/tls_connection.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <poll.h>
#include <csignal>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <vector>

#include "client/tls_context.hpp"

namespace cfo::client {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

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

void set_socket_options(int fd) {
  // Best effort: a failure leaves the system defaults.
  const int on = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &kKeepaliveIdleS, sizeof kKeepaliveIdleS);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &kKeepaliveIntervalS, sizeof kKeepaliveIntervalS);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &kKeepaliveProbes, sizeof kKeepaliveProbes);
  // Requests are small writes answered at once: without TCP_NODELAY, Nagle's algorithm holds a request's last
  // segment until the peer's delayed ACK (about 40 ms per request). Go's net package sets it on every connection.
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

/// OpenSSL writes the socket with write(2), which raises SIGPIPE when the peer has gone. Like Go's runtime (and
/// Boost.Asio's io_context), a process that has SIGPIPE at its default gets it ignored when it opens a connection, so
/// that the write fails with EPIPE (a dropped connection) instead of ending the process. A handler the program
/// installed is kept. One sigaction(2) per new connection.
void ignore_sigpipe() {
  struct sigaction current{};
  if (::sigaction(SIGPIPE, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) return;
  struct sigaction ignore{};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGPIPE, &ignore, nullptr);
}

bool set_blocking(int fd, bool blocking) {
  const int flags = ::fcntl(fd, F_GETFL, 0);
  if (flags < 0) return false;
  return ::fcntl(fd, F_SETFL, blocking ? (flags & ~O_NONBLOCK) : (flags | O_NONBLOCK)) == 0;
}

/// Milliseconds left until `deadline` for poll(2) (0 when past it).
int poll_ms_until(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  if (left <= 0) return 0;
  return left > INT_MAX ? INT_MAX : static_cast<int>(left);
}

/// Waits until `fd` is ready for `events` or `deadline` passes. False on a timeout or a poll error.
bool wait_ready(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, poll_ms_until(deadline));
    if (n > 0) return true;
    if (n == 0 || errno != EINTR) return false;
  }
}

/// The addresses of `url`: the literal itself for an IP host, else a lookup (getaddrinfo on Asio's resolver
/// thread) given up at `deadline`.
Result<std::vector<tcp::endpoint>> endpoints_of(const ServerUrl& url, Clock::time_point deadline,
                                                std::chrono::milliseconds timeout_ms) {
  const auto port = static_cast<unsigned short>(std::stoul(url.port));
  if (url.host_is_ip) {
    boost::system::error_code ec;
    auto address = asio::ip::make_address(url.host, ec);
    if (ec) return fail("resolve " + url.host + ": " + ec.message());
    return std::vector<tcp::endpoint>{tcp::endpoint(address, port)};
  }
  asio::io_context ioc;
  tcp::resolver resolver(ioc);
  asio::steady_timer timer(ioc, deadline);
  bool timed_out = false;
  boost::system::error_code ec;
  std::vector<tcp::endpoint> out;
  timer.async_wait([&](boost::system::error_code e) {
    if (!e) {
      timed_out = true;
      resolver.cancel();
    }
  });
  resolver.async_resolve(url.host, url.port, [&](boost::system::error_code e, const tcp::resolver::results_type& r) {
    ec = e;
    for (const auto& entry : r) out.push_back(entry.endpoint());
    timer.cancel();
  });
  ioc.run();
  if (timed_out) return fail("resolve " + url.host + ": timed out after " + std::to_string(timeout_ms.count()) + " ms");
  if (ec) return fail("resolve " + url.host + ": " + ec.message());
  return out;
}

}  // namespace

TlsConnection::TlsConnection(asio::ssl::context& tls) : tls_(tls) {}

TlsConnection::~TlsConnection() { close(); }

bool TlsConnection::adopt_socket(int fd) {
  std::lock_guard lock(fd_mu_);
  if (interrupted_.load()) {
    ::close(fd);
    return false;
  }
  fd_.store(fd);
  return true;
}

void TlsConnection::close_socket() {
  std::lock_guard lock(fd_mu_);
  if (const int fd = fd_.exchange(-1); fd >= 0) {
    ::shutdown(fd, SHUT_RDWR);
    ::close(fd);
  }
}

Result<void> TlsConnection::connect_any(const std::vector<boost::asio::ip::tcp::endpoint>& endpoints,
                                        std::chrono::steady_clock::time_point deadline, const std::string& where,
                                        std::chrono::milliseconds timeout_ms) {
  std::string last = "no address";
  for (const auto& endpoint : endpoints) {
    const int fd = ::socket(endpoint.protocol().family(), SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, IPPROTO_TCP);
    if (fd < 0) {
      last = boost::system::error_code(errno, boost::system::system_category()).message();
      continue;
    }
    // Published before connect(2): interrupt()'s shutdown(2) also ends a connect in progress.
    if (!adopt_socket(fd)) return fail("connect " + where + ": cancelled");
    int err = 0;
    if (::connect(fd, endpoint.data(), static_cast<socklen_t>(endpoint.size())) != 0) {
      err = errno;
      if (err == EINPROGRESS) {
        const bool ready = wait_ready(fd, POLLOUT, deadline);
        if (!ready) return fail("connect " + where + ": timed out after " + std::to_string(timeout_ms.count()) + " ms");
        if (interrupted_.load()) return fail("connect " + where + ": cancelled");  // shutdown(2) woke the poll
        socklen_t len = sizeof err;
        if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
      }
    }
    if (err == 0) return {};
    close_socket();
    last = boost::system::error_code(err, boost::system::system_category()).message();
  }
  return fail("connect " + where + ": " + last);
}

Result<void> TlsConnection::open(const ServerUrl& url, bool verify, std::chrono::milliseconds timeout_ms) {
  close();
  ignore_sigpipe();
  const auto deadline = Clock::now() + timeout_ms;
  const std::string where = url.host_header();
  const std::string timed_out = "timed out after " + std::to_string(timeout_ms.count()) + " ms";

  auto endpoints = endpoints_of(url, deadline, timeout_ms);
  if (!endpoints) return std::unexpected(endpoints.error());
  if (auto connected = connect_any(*endpoints, deadline, where, timeout_ms); !connected) return connected;
  const int fd = fd_.load();
  set_socket_options(fd);

  ssl_ = SSL_new(tls_.native_handle());
  if (ssl_ == nullptr || SSL_set_fd(ssl_, fd) != 1) return fail("TLS handshake with " + where + ": out of memory");
  // One read(2) takes every record the socket holds, not a record header and then its body.
  SSL_set_read_ahead(ssl_, 1);
  if (auto prepared = prepare_tls_session(ssl_, url, verify); !prepared) return prepared;

  // The handshake runs on the non-blocking socket so that the whole of it keeps to the deadline.
  for (;;) {
    ERR_clear_error();
    const int ret = SSL_connect(ssl_);
    if (ret == 1) break;
    const int saved_errno = errno;
    const int err = SSL_get_error(ssl_, ret);
    if ((err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) && !interrupted_.load()) {
      if (wait_ready(fd, err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline)) continue;
      return fail("TLS handshake with " + where + ": " + timed_out);
    }
    std::string msg = "TLS handshake with " + where + ": " + error_of(ret, saved_errno).message();
    const long verify_result = SSL_get_verify_result(ssl_);
    if (verify && verify_result != X509_V_OK)
      msg += " (certificate check: " + std::string(X509_verify_cert_error_string(verify_result)) + ")";
    return fail(msg);
  }
  if (!set_blocking(fd, true)) return fail("connect " + where + ": cannot make the socket blocking");
  return {};
}

void TlsConnection::set_io_timeout(std::chrono::milliseconds timeout) {
  const long ms = static_cast<long>(std::max<std::int64_t>(timeout.count(), 1));
  if (ms == io_timeout_ms_) return;
  const int fd = fd_.load();
  if (fd < 0) return;
  timeval tv{};
  tv.tv_sec = ms / 1000;
  tv.tv_usec = (ms % 1000) * 1000;
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  io_timeout_ms_ = ms;
}

void TlsConnection::interrupt() {
  std::lock_guard lock(fd_mu_);
  interrupted_.store(true);
  if (const int fd = fd_.load(); fd >= 0) ::shutdown(fd, SHUT_RDWR);
}

void TlsConnection::close() {
  if (ssl_ != nullptr) {
    SSL_free(ssl_);
    ssl_ = nullptr;
  }
  close_socket();
  io_timeout_ms_ = -1;
}

boost::system::error_code TlsConnection::error_of(int ret, int saved_errno) {
  if (interrupted_.load()) return asio::error::operation_aborted;
  switch (SSL_get_error(ssl_, ret)) {
    case SSL_ERROR_ZERO_RETURN:
      return asio::error::eof;
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
      // A blocking socket only asks again when SO_RCVTIMEO/SO_SNDTIMEO ran out.
      return beast::error::timeout;
    case SSL_ERROR_SYSCALL:
      if (saved_errno == EAGAIN || saved_errno == EWOULDBLOCK) return beast::error::timeout;
      if (saved_errno != 0) return {saved_errno, boost::system::system_category()};
      return asio::ssl::error::stream_truncated;
    default: {
      const unsigned long code = ERR_peek_last_error();
      if (ERR_GET_REASON(code) == SSL_R_UNEXPECTED_EOF_WHILE_READING) return asio::ssl::error::stream_truncated;
      if (code == 0) return asio::ssl::error::stream_truncated;
      return {static_cast<int>(code), asio::error::get_ssl_category()};
    }
  }
}

std::size_t TlsConnection::transfer(bool writing, void* data, std::size_t size, boost::system::error_code& ec) {
  if (ssl_ == nullptr || interrupted_.load()) {
    ec = asio::error::operation_aborted;
    return 0;
  }
  ec = {};
  if (size == 0) return 0;
  const int want = size > INT_MAX ? INT_MAX : static_cast<int>(size);
  for (;;) {
    ERR_clear_error();
    errno = 0;
    const int n = writing ? SSL_write(ssl_, data, want) : SSL_read(ssl_, data, want);
    if (n > 0) return static_cast<std::size_t>(n);
    const int saved_errno = errno;
    // A signal that interrupts a call on a socket with SO_RCVTIMEO/SO_SNDTIMEO ends it with EINTR whatever
    // SA_RESTART says: the same call is made again (OpenSSL requires the same arguments).
    if (saved_errno == EINTR && !interrupted_.load()) continue;
    ec = error_of(n, saved_errno);
    return 0;
  }
}

std::size_t TlsConnection::read_into(void* data, std::size_t size, boost::system::error_code& ec) {
  return transfer(false, data, size, ec);
}

std::size_t TlsConnection::write_from(const void* data, std::size_t size, boost::system::error_code& ec) {
  // SSL_write only reads the buffer; transfer() takes one pointer type for both directions.
  return transfer(true, const_cast<void*>(data), size, ec);
}

}  // namespace cfo::client
