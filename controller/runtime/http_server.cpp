#include "runtime/http_server.hpp"

#include <spdlog/spdlog.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/v6_only.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <array>
#include <charconv>
#include <chrono>
#include <exception>

namespace cfo::runtime {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr std::uint32_t kMaxHeaderBytes = 8 * 1024;
constexpr std::uint64_t kMaxBodyBytes = std::uint64_t{4} * 1024;
constexpr auto kIdleTimeout = std::chrono::seconds(10);
constexpr int kMaxConnections = 64;
constexpr auto kLingerTimeout = std::chrono::seconds(2);
constexpr std::size_t kLingerBytes = std::size_t{64} * 1024;

Result<uint16_t> parse_port(std::string_view text, std::string_view whole) {
  unsigned value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value > 65535)
    return fail("bind address \"" + std::string(whole) + "\": the port must be a number from 0 to 65535");
  return static_cast<uint16_t>(value);
}

}  // namespace

Result<std::optional<BindAddress>> parse_bind_address(std::string_view text) {
  if (text == "0") return std::optional<BindAddress>{};
  const std::string whole(text);
  std::string_view host, port;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':')
      return fail("bind address \"" + whole + "\": expected [IPv6]:port");
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string_view::npos)
      return fail("bind address \"" + whole + "\": expected [host]:port (e.g. \":8080\"), or \"0\" to disable");
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos)
      return fail("bind address \"" + whole + "\": write an IPv6 host in brackets, e.g. [::1]:8080");
  }
  auto p = parse_port(port, text);
  if (!p) return std::unexpected(p.error());
  BindAddress out;
  out.port = *p;
  if (host == "localhost") {
    out.host = "127.0.0.1";
  } else if (!host.empty()) {
    boost::system::error_code ec;
    asio::ip::make_address(std::string(host), ec);
    if (ec) return fail("bind address \"" + whole + "\": \"" + std::string(host) + "\" is not an IP address");
    out.host = std::string(host);
  }
  return std::optional<BindAddress>(std::move(out));
}

struct HttpServer::Impl {
  explicit Impl(const std::string& n, const HttpHandler& h) : name(n), handler(h) {}
  void accept();

  const std::string& name;
  const HttpHandler& handler;
  std::atomic<int> connections{0};  // declared before the io_context: sessions it destroys still count down
  asio::io_context ioc{1};
  tcp::acceptor acceptor{ioc};
};

namespace {

/// One connection: read a request, answer it, and again while the client keeps the connection alive.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, HttpServer::Impl& server) : stream_(std::move(socket)), server_(server) {
    ++server_.connections;
  }
  ~Session() { --server_.connections; }

  void read() {
    parser_.emplace();
    parser_->header_limit(kMaxHeaderBytes);
    parser_->body_limit(kMaxBodyBytes);
    stream_.expires_after(kIdleTimeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

 private:
  void on_read(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == http::error::partial_message || ec == beast::error::timeout ||
        ec == asio::error::operation_aborted || ec == asio::error::connection_reset || ec == asio::error::eof) {
      close();
      return;
    }
    if (ec) {  // not HTTP, or over a limit
      respond(11, false, HttpResponse{400, "text/plain; charset=utf-8", "bad request: " + ec.message() + "\n"});
      return;
    }
    // on_read is only ever async_read's completion on *parser_, which the read that it completes emplaced.
    const auto& req = parser_->get();  // NOLINT(bugprone-unchecked-optional-access)
    HttpRequest request;
    request.method = std::string(req.method_string());
    std::string_view target(req.target().data(), req.target().size());
    auto q = target.find('?');
    request.path = std::string(target.substr(0, q));
    request.query = q == std::string_view::npos ? "" : std::string(target.substr(q + 1));
    HttpResponse out;
    try {
      out = server_.handler(request);
    } catch (const std::exception& e) {
      spdlog::error("{} server: handler failed for {} {}: {}", server_.name, request.method, request.path, e.what());
      out = HttpResponse{500, "text/plain; charset=utf-8", "internal error\n"};
    } catch (...) {
      out = HttpResponse{500, "text/plain; charset=utf-8", "internal error\n"};
    }
    respond(req.version(), req.keep_alive(), std::move(out));
  }

  void respond(unsigned version, bool keep_alive, HttpResponse out) {
    res_ = {};
    res_.version(version);
    res_.result(out.status);
    res_.set(http::field::content_type, out.content_type);
    res_.set(http::field::cache_control, "no-cache");
    res_.keep_alive(keep_alive);
    res_.body() = std::move(out.body);
    res_.prepare_payload();
    stream_.expires_after(kIdleTimeout);
    http::async_write(stream_, res_, [self = shared_from_this(), keep_alive](beast::error_code ec, std::size_t) {
      if (ec || !keep_alive)
        self->close();
      else
        self->read();
    });
  }

  // Ends the connection gracefully: stop sending, then read and drop what the client still sends (for at most
  // kLingerTimeout and kLingerBytes) before closing. Closing a socket with unread input would make the kernel send a
  // reset, which can destroy the response (e.g. a 400) before the client has read it.
  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(kLingerTimeout);
    drain();
  }

  void drain() {
    stream_.async_read_some(asio::buffer(discard_), [self = shared_from_this()](beast::error_code ec, std::size_t n) {
      self->drained_ += n;
      if (!ec && self->drained_ < kLingerBytes) return self->drain();
      beast::error_code ignored;
      self->stream_.socket().close(ignored);
    });
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> res_;
  std::array<char, 4096> discard_;
  std::size_t drained_ = 0;
  HttpServer::Impl& server_;
};

}  // namespace

void HttpServer::Impl::accept() {
  acceptor.async_accept(ioc, [this](beast::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
    if (ec) {
      spdlog::debug("{} server: accept failed: {}", name, ec.message());
    } else if (connections.load() >= kMaxConnections) {
      beast::error_code ignored;
      socket.close(ignored);
    } else {
      beast::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);  // answers go out at once, not after the peer's delayed ACK
      std::make_shared<Session>(std::move(socket), *this)->read();
    }
    accept();
  });
}

HttpServer::HttpServer(std::string name, HttpHandler handler)
    : name_(std::move(name)), handler_(std::move(handler)), impl_(std::make_unique<Impl>(name_, handler_)) {}

HttpServer::~HttpServer() { stop(); }

Result<void> HttpServer::start(const BindAddress& address) {
  if (thread_.joinable() || port_.load() != 0) return fail(name_ + " server: already started");
  auto& acceptor = impl_->acceptor;
  auto open_and_bind = [&](const tcp::endpoint& ep, bool dual_stack) -> boost::system::error_code {
    boost::system::error_code ec;
    if (acceptor.is_open()) acceptor.close(ec);
    acceptor.open(ep.protocol(), ec);
    if (ec) return ec;
    acceptor.set_option(asio::socket_base::reuse_address(true), ec);
    if (dual_stack) acceptor.set_option(asio::ip::v6_only(false), ec);
    acceptor.bind(ep, ec);
    if (ec) return ec;
    acceptor.listen(asio::socket_base::max_listen_connections, ec);
    return ec;
  };
  boost::system::error_code ec;
  if (address.host.empty()) {
    // ":port" listens on every address, IPv6 and IPv4 when the host has IPv6, else IPv4 only.
    ec = open_and_bind(tcp::endpoint(tcp::v6(), address.port), true);
    if (ec) ec = open_and_bind(tcp::endpoint(tcp::v4(), address.port), false);
  } else {
    auto ip = asio::ip::make_address(address.host, ec);
    if (!ec) ec = open_and_bind(tcp::endpoint(ip, address.port), false);
  }
  if (ec) {
    boost::system::error_code ignored;
    acceptor.close(ignored);
    return fail(name_ + " server: cannot listen on " + (address.host.empty() ? "" : address.host) + ":" +
                std::to_string(address.port) + ": " + ec.message());
  }
  port_ = acceptor.local_endpoint(ec).port();
  impl_->accept();
  thread_ = std::thread([this] {
    try {
      impl_->ioc.run();
    } catch (const std::exception& e) {
      spdlog::error("{} server stopped: {}", name_, e.what());
    }
  });
  spdlog::info("{} server listening on {}:{}", name_, address.host.empty() ? "*" : address.host, port_.load());
  return {};
}

void HttpServer::stop() {
  if (!thread_.joinable()) return;
  impl_->ioc.stop();
  thread_.join();
  // The I/O thread is gone: the listener can be closed from here. Open connections are dropped with the Impl.
  boost::system::error_code ignored;
  impl_->acceptor.close(ignored);
}

}  // namespace cfo::runtime
