#include "webhook/webhook_server.hpp"

#include <spdlog/spdlog.h>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/v6_only.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <cctype>
#include <charconv>
#include <mutex>
#include <optional>
#include <thread>

#include "webhook/cert_watcher.hpp"

namespace cfo::webhook {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using Steady = std::chrono::steady_clock;

namespace {
constexpr std::uint32_t kMaxHeaderBytes = 16 * 1024;
constexpr auto kShutdownTimeout = std::chrono::seconds(2);
constexpr const char* kTextPlain = "text/plain; charset=utf-8";
}  // namespace

Result<std::chrono::milliseconds> parse_go_duration(std::string_view text) {
  if (text.empty()) return fail("empty duration");
  if (text.front() == '-') return fail("negative duration \"" + std::string(text) + "\"");
  if (text == "0") return std::chrono::milliseconds(0);
  double total_ms = 0;
  std::string_view rest = text;
  while (!rest.empty()) {
    std::size_t digits = 0;
    while (digits < rest.size() && (std::isdigit(static_cast<unsigned char>(rest[digits])) || rest[digits] == '.'))
      ++digits;
    if (digits == 0) return fail("duration \"" + std::string(text) + "\": expected a number");
    double value = 0;
    const char* const first = rest.data();
    auto [end, ec] = std::from_chars(first, first + digits, value);
    if (ec != std::errc() || end != first + digits) return fail("duration \"" + std::string(text) + "\": bad number");
    rest.remove_prefix(digits);
    std::size_t unit_len = 0;
    while (unit_len < rest.size() && !std::isdigit(static_cast<unsigned char>(rest[unit_len])) && rest[unit_len] != '.')
      ++unit_len;
    const std::string_view unit = rest.substr(0, unit_len);
    rest.remove_prefix(unit_len);
    double scale = 0;
    if (unit == "h")
      scale = 3600e3;
    else if (unit == "m")
      scale = 60e3;
    else if (unit == "s")
      scale = 1e3;
    else if (unit == "ms")
      scale = 1;
    else if (unit == "us" || unit == "\xc2\xb5s" || unit == "\xce\xbcs")
      scale = 1e-3;
    else if (unit == "ns")
      scale = 1e-6;
    else
      return fail("duration \"" + std::string(text) + "\": unknown unit \"" + std::string(unit) + "\"");
    total_ms += value * scale;
  }
  return std::chrono::milliseconds(static_cast<int64_t>(total_ms));
}

struct WebhookServer::Impl {
  explicit Impl(WebhookServerOptions o)
      : options(std::move(o)),
        watcher(options.cert_path, options.key_path),
        workers(static_cast<std::size_t>(std::max(1, options.handler_threads))) {}

  void accept();
  void schedule_cert_check();
  void check_certificate();
  Result<void> listen();

  WebhookServerOptions options;
  std::map<std::string, AdmissionHandler> handlers;  // fixed once started
  CertWatcher watcher;
  std::atomic<int> connections{0};  // declared before the io_context: sessions it destroys still count down
  asio::thread_pool workers;
  asio::io_context ioc{1};
  tcp::acceptor acceptor{ioc};
  asio::steady_timer cert_timer{ioc};
  std::thread io_thread;
  std::atomic<uint16_t> port{0};
  std::atomic<bool> started{false};
  std::atomic<bool> stopped{false};
};

namespace {

/// One connection: TLS handshake, then requests answered one after the other while the client keeps it alive.
class Session : public std::enable_shared_from_this<Session> {
 public:
  using Stream = ssl::stream<beast::tcp_stream>;

  Session(tcp::socket socket, std::shared_ptr<ssl::context> tls, WebhookServer::Impl& server)
      : tls_(std::move(tls)), stream_(std::move(socket), *tls_), budget_(stream_.get_executor()), server_(server) {
    ++server_.connections;
  }
  ~Session() { --server_.connections; }

  void start() {
    lowest().expires_after(server_.options.handshake_timeout);
    stream_.async_handshake(ssl::stream_base::server, [self = shared_from_this()](beast::error_code ec) {
      if (ec) {
        spdlog::debug("webhook server: TLS handshake failed: {}", ec.message());
        return self->close_now();
      }
      self->wait_for_request();
    });
  }

 private:
  beast::tcp_stream& lowest() { return beast::get_lowest_layer(stream_); }

  // Waits (idle timeout) for the first bytes of the next request, unless they are already buffered.
  void wait_for_request() {
    if (buffer_.size() > 0) return read_request();
    lowest().expires_after(server_.options.idle_timeout);
    stream_.async_read_some(buffer_.prepare(4096), [self = shared_from_this()](beast::error_code ec, std::size_t n) {
      if (ec) return self->close_now();
      self->buffer_.commit(n);
      self->read_request();
    });
  }

  void read_request() {
    parser_.emplace();
    parser_->header_limit(kMaxHeaderBytes);
    parser_->body_limit(kMaxReviewBytes);
    lowest().expires_after(server_.options.read_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

  void on_read(beast::error_code ec) {
    if (ec == http::error::body_limit) {
      return reply_error(
          413,
          "the AdmissionReview is larger than the " + std::to_string(kMaxReviewBytes) + " bytes this webhook accepts",
          false);
    }
    if (ec == http::error::end_of_stream || ec == beast::error::timeout || ec == asio::error::operation_aborted ||
        ec == asio::error::eof || ec == asio::error::connection_reset || ec == ssl::error::stream_truncated)
      return close_now();
    if (ec) return reply_error(400, "bad request: " + ec.message(), false);

    // on_read is only ever async_read's completion on *parser_, which read_request emplaced.
    const auto& req = parser_->get();  // NOLINT(bugprone-unchecked-optional-access)
    version_ = req.version();
    keep_alive_ = req.keep_alive();
    std::string_view target(req.target().data(), req.target().size());
    const auto q = target.find('?');
    path_ = std::string(target.substr(0, q));
    const std::string_view query = q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
    auto handler = server_.handlers.find(path_);
    if (handler == server_.handlers.end()) {
      path_.clear();  // not a webhook: not counted
      return reply_error(404, "no webhook is served at this path", keep_alive_);
    }
    started_ = Steady::now();
    if (server_.options.observer) server_.options.observer->on_request_start(path_);
    if (req.method() != http::verb::post) return reply_error(405, "only POST is served", keep_alive_);
    std::string_view content_type(req[http::field::content_type].data(), req[http::field::content_type].size());
    if (content_type.substr(0, content_type.find(';')) != "application/json")
      return reply_error(415, "Content-Type must be application/json, not \"" + std::string(content_type) + "\"",
                         keep_alive_);
    auto review = decode_admission_review(req.body());
    if (!review) return reply_error(400, "cannot decode the AdmissionReview: " + review.error().message, keep_alive_);
    decide(handler->second, std::move(*review), budget_for(query));
  }

  // The answer budget: the server's, at most half of the apiserver's own deadline (?timeout=10s).
  std::chrono::milliseconds budget_for(std::string_view query) const {
    auto budget = server_.options.answer_budget;
    for (std::size_t pos = 0; pos <= query.size();) {
      std::size_t amp = query.find('&', pos);
      if (amp == std::string_view::npos) amp = query.size();
      std::string_view param = query.substr(pos, amp - pos);
      if (param.starts_with("timeout=")) {
        auto apiserver = parse_go_duration(param.substr(8));
        if (apiserver && apiserver->count() > 0) budget = std::min(budget, *apiserver / 2);
      }
      pos = amp + 1;
    }
    return budget;
  }

  // Runs the handler on the worker pool; the first of its answer and the budget timer is sent.
  // Each request has its own number: an answer that comes after the budget ran out (and after the connection moved
  // on to its next request) must not be taken for the next request's.
  void decide(const AdmissionHandler& handler, AdmissionRequest review, std::chrono::milliseconds budget) {
    answered_ = false;
    const uint64_t seq = ++seq_;
    budget_.expires_after(budget);
    budget_.async_wait([self = shared_from_this(), budget, seq](beast::error_code ec) {
      if (ec || self->answered_ || self->seq_ != seq) return;
      spdlog::warn("webhook server: {} not decided within {} ms; answering 503", self->path_, budget.count());
      self->reply_error(503, "the webhook did not decide within " + std::to_string(budget.count()) + " ms",
                        self->keep_alive_);
    });
    asio::post(server_.workers, [self = shared_from_this(), &handler, review = std::move(review), seq]() mutable {
      unsigned status = 200;
      std::string body;
      try {
        AdmissionResponse r = handler(review);
        if (!r.allowed)
          spdlog::info("webhook {} denied {} {} {}/{}: {}", self->path_, operation_name(review.operation), review.kind,
                       review.namespace_, review.name, r.message);
        body = encode_admission_review(review.review_api_version, review.uid, r);
      } catch (const std::exception& e) {
        spdlog::error("webhook {}: handler failed: {}", self->path_, e.what());
        status = 500;
        body = "internal error: the handler failed\n";
      } catch (...) {
        status = 500;
        body = "internal error: the handler failed\n";
      }
      asio::post(self->stream_.get_executor(), [self, status, seq, body = std::move(body)]() mutable {
        if (self->answered_ || self->seq_ != seq) return;  // the budget ran out first
        self->budget_.cancel();
        self->reply(status, status == 200 ? "application/json" : kTextPlain, std::move(body), self->keep_alive_);
      });
    });
  }

  void reply_error(unsigned status, std::string message, bool keep_alive) {
    reply(status, kTextPlain, std::move(message) + "\n", keep_alive);
  }

  void reply(unsigned status, const char* content_type, std::string body, bool keep_alive) {
    answered_ = true;
    res_ = {};
    res_.version(version_ ? version_ : 11);
    res_.result(status);
    res_.set(http::field::content_type, content_type);
    res_.keep_alive(keep_alive);
    res_.body() = std::move(body);
    res_.prepare_payload();
    lowest().expires_after(server_.options.write_timeout);
    http::async_write(stream_, res_,
                      [self = shared_from_this(), keep_alive, status](beast::error_code ec, std::size_t) {
                        if (!self->path_.empty() && self->server_.options.observer) {
                          const double seconds = std::chrono::duration<double>(Steady::now() - self->started_).count();
                          self->server_.options.observer->on_request_end(self->path_, status, seconds);
                        }
                        self->path_.clear();
                        if (ec || !keep_alive) return self->close();
                        self->wait_for_request();
                      });
  }

  // TLS close_notify (bounded), then the socket.
  void close() {
    lowest().expires_after(kShutdownTimeout);
    stream_.async_shutdown([self = shared_from_this()](beast::error_code) { self->close_now(); });
  }

  void close_now() {
    beast::error_code ignored;
    lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
    lowest().close();
  }

  std::shared_ptr<ssl::context> tls_;  // before stream_: the stream's SSL was made from it
  Stream stream_;
  asio::steady_timer budget_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> res_;
  WebhookServer::Impl& server_;
  std::string path_;  // the webhook of the request being answered; "" when not counted
  Steady::time_point started_;
  unsigned version_ = 11;
  bool keep_alive_ = true;
  bool answered_ = false;
  uint64_t seq_ = 0;
};

}  // namespace

void WebhookServer::Impl::accept() {
  acceptor.async_accept(asio::make_strand(ioc), [this](beast::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
    if (ec) {
      spdlog::debug("webhook server: accept failed: {}", ec.message());
    } else if (connections.load() >= options.max_connections) {
      beast::error_code ignored;
      socket.close(ignored);
    } else if (auto tls = watcher.current(); !tls) {
      spdlog::debug("webhook server: no certificate loaded yet; connection closed");
      beast::error_code ignored;
      socket.close(ignored);
    } else {
      beast::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      std::make_shared<Session>(std::move(socket), std::move(tls), *this)->start();
    }
    accept();
  });
}

void WebhookServer::Impl::check_certificate() {
  std::string why;
  switch (watcher.check(&why)) {
    case CertWatcher::Outcome::Loaded:
      spdlog::info("webhook server: serving the certificate of {}", watcher.cert_path());
      break;
    case CertWatcher::Outcome::Rejected:
      spdlog::warn("webhook server: the certificate in {} / {} is not used ({}); {}", watcher.cert_path(),
                   watcher.key_path(), why,
                   watcher.current() ? "the previous one is still served" : "nothing is served until a good pair");
      break;
    case CertWatcher::Outcome::Unchanged:
      break;
  }
}

void WebhookServer::Impl::schedule_cert_check() {
  cert_timer.expires_after(options.cert_check_interval);
  cert_timer.async_wait([this](beast::error_code ec) {
    if (ec) return;
    check_certificate();
    schedule_cert_check();
  });
}

Result<void> WebhookServer::Impl::listen() {
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
  const auto& address = options.bind;
  if (address.host.empty()) {
    ec = open_and_bind(tcp::endpoint(tcp::v6(), address.port), true);
    if (ec) ec = open_and_bind(tcp::endpoint(tcp::v4(), address.port), false);
  } else {
    auto ip = asio::ip::make_address(address.host, ec);
    if (!ec) ec = open_and_bind(tcp::endpoint(ip, address.port), false);
  }
  if (ec) {
    boost::system::error_code ignored;
    acceptor.close(ignored);
    return fail("webhook server: cannot listen on " + address.host + ":" + std::to_string(address.port) + ": " +
                ec.message());
  }
  port = acceptor.local_endpoint(ec).port();
  return {};
}

WebhookServer::WebhookServer(WebhookServerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

WebhookServer::~WebhookServer() { stop(); }

Result<void> WebhookServer::handle(const std::string& path, AdmissionHandler handler) {
  if (impl_->started) return fail("webhook server: handlers must be registered before start()");
  if (path.empty() || path.front() != '/') return fail("webhook server: path \"" + path + "\" must start with /");
  if (!handler) return fail("webhook server: no handler for " + path);
  if (!impl_->handlers.emplace(path, std::move(handler)).second)
    return fail("webhook server: " + path + " is already registered");
  return {};
}

Result<void> WebhookServer::start() {
  if (impl_->started.exchange(true)) return fail("webhook server: already started");
  if (auto r = impl_->listen(); !r) return r;
  impl_->check_certificate();
  impl_->accept();
  impl_->schedule_cert_check();
  impl_->io_thread = std::thread([impl = impl_.get()] {
    try {
      impl->ioc.run();
    } catch (const std::exception& e) {
      spdlog::error("webhook server stopped: {}", e.what());
    }
  });
  spdlog::info("webhook server listening on {}:{} ({} webhook(s))",
               impl_->options.bind.host.empty() ? "*" : impl_->options.bind.host, impl_->port.load(),
               impl_->handlers.size());
  return {};
}

uint16_t WebhookServer::port() const { return impl_->port.load(); }

bool WebhookServer::has_certificate() const { return impl_->watcher.current() != nullptr; }

std::string WebhookServer::serving_certificate() const { return impl_->watcher.current_certificate(); }

std::vector<std::string> WebhookServer::paths() const {
  std::vector<std::string> out;
  for (const auto& [path, handler] : impl_->handlers) out.push_back(path);
  return out;
}

void WebhookServer::stop() {
  if (!impl_->started || impl_->stopped.exchange(true)) return;
  impl_->ioc.stop();
  if (impl_->io_thread.joinable()) impl_->io_thread.join();
  impl_->workers.join();  // handlers still running finish; their answers are dropped with the io_context
  boost::system::error_code ignored;
  impl_->acceptor.close(ignored);
}

}  // namespace cfo::webhook
