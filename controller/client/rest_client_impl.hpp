#pragma once
// Private state of RestClient, shared by rest_client.cpp (plain requests) and watch.cpp (streams).
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "client/refreshing_file.hpp"
#include "client/rest_client.hpp"
#include "client/server_url.hpp"
#include "client/tls_connection.hpp"
#include "client/request_throttle.hpp"

namespace cfo::client {

/// Checks a request target before it is written on the wire: it must be a path ("/..."), without spaces or
/// line breaks (the HTTP request line and headers could otherwise be forged).
Result<void> check_target(const std::string& target);

/// Runs `cb` when `token` (may be null) is requested, until the object goes away; afterwards the callback is
/// neither running nor going to run, so it may refer to locals declared before this object.
class ScopedStopCallback {
 public:
  ScopedStopCallback(StopToken* token, std::function<void()> cb) : token_(token) {
    if (token_) id_ = token_->on_stop(std::move(cb));
  }
  ~ScopedStopCallback() {
    if (token_) token_->remove_callback(id_);
  }
  ScopedStopCallback(const ScopedStopCallback&) = delete;
  ScopedStopCallback& operator=(const ScopedStopCallback&) = delete;

 private:
  StopToken* token_;
  int id_ = 0;
};

/// True when `token` is set and requested.
inline bool stopped(const StopToken* token) { return token && token->stop_requested(); }

/// Seconds of a Retry-After header value in its delta-seconds form ("7", surrounding blanks allowed);
/// std::nullopt for an HTTP date, a negative number or anything else (client-go reads only the seconds form).
std::optional<int> parse_retry_after(std::string_view value);

/// How long a watch stream may stay silent before it is taken for dead: the watch's own timeoutSeconds (read from
/// `target`'s query) plus 30 s, because until then the server may lawfully send nothing (servers before periodic
/// bookmarks, like kube-apiserver 1.20, are silent for the whole timeout when nothing changes; kube-rs also waits for
/// its watch timeout plus a margin); never less than `configured` (RestClientTimeouts::watch_idle_timeout_ms), which
/// alone applies to a watch without timeoutSeconds.
std::chrono::milliseconds watch_idle_limit(std::string_view target, std::chrono::milliseconds configured);

/// The error of a call ended by RestClient::with_stop's token.
Error cancelled_error(const std::string& what);

/// A keep-alive connection with the TLS context it was made with (members in this order: the connection refers to
/// the context).
struct PooledConnection {
  explicit PooledConnection(std::shared_ptr<boost::asio::ssl::context> context) : tls(std::move(context)), conn(*tls) {}
  std::shared_ptr<boost::asio::ssl::context> tls;
  TlsConnection conn;
  std::chrono::steady_clock::time_point idle_since{};
};

/// How many idle connections a client keeps for reuse (client-go's transport: MaxIdleConnsPerHost 25), and how
/// long one may stay idle before it is closed instead of reused (Go's IdleConnTimeout: 90 s).
inline constexpr std::size_t kMaxIdleConnections = 25;
inline constexpr std::chrono::seconds kMaxIdleTime{90};

struct RestClient::Impl {
  Impl(ClientConfig c, RestClientOptions o);

  /// Waits for the rate limiter's token (no wait without a limit). False when `a` or `b` (either may be null) was
  /// requested first.
  bool throttle(StopToken* a, StopToken* b);
  /// Waits `delay` through options.sleep (or the real clock). False when `a` or `b` was requested first.
  bool sleep(std::chrono::nanoseconds delay, StopToken* a, StopToken* b);

  /// The TLS context to use for the next connection; rebuilt when the CA file changed (keeping the previous one
  /// when the new bundle does not load). Error: the configuration's TLS material is unusable.
  Result<std::shared_ptr<boost::asio::ssl::context>> tls_context();

  /// The bearer token for the next request ("" for none), re-read from bearer_token_file when due.
  Result<std::string> bearer_token();

  /// What every call needs before it connects: the TLS context and the bearer token.
  struct Prepared {
    std::shared_ptr<boost::asio::ssl::context> tls;
    std::string token;
  };

  /// Checks `target` and the server URL, then gets the TLS context and the token. Errors are prefixed with `what`
  /// (e.g. "GET /api/v1/namespaces: ...").
  Result<Prepared> prepare(const std::string& what, const std::string& target);

  /// One attempt of a plain (non-watch) request: the response, or the error and whether the connection dropped
  /// before a response came (which makes a GET worth resending). `stop` (may be null) cancels it.
  /// `streamed`: part of a 2xx body went to the sink, so the request must not be sent again (the sink has seen it).
  struct Attempt {
    Result<Response> result;
    bool connection_dropped = false;
    bool streamed = false;
  };
  /// `sink` (may be null) receives the body of a 2xx answer piece by piece instead of Response::body, which then
  /// stays empty; its error ends the attempt (the connection is closed, not kept).
  Attempt send_once(boost::beast::http::verb verb, const std::string& what, const std::string& target,
                    const std::string& body, const std::string& content_type, const std::string& accept,
                    StopToken* stop, const RestClient::BodySink* sink = nullptr);

  /// A request with the common headers (Host, User-Agent, Accept: `accept`, Authorization, Content-Type when there is
  /// a body).
  boost::beast::http::request<boost::beast::http::string_body> make_request(
      boost::beast::http::verb verb, const std::string& target, const std::string& body,
      const std::string& content_type, const std::string& accept, const std::string& token) const;

  /// An idle connection made with `tls` (the CA in use), or nullptr: the caller opens a new one. Connections idle
  /// longer than kMaxIdleTime, or made with another TLS context, are closed on the way.
  std::unique_ptr<PooledConnection> take_idle(const std::shared_ptr<boost::asio::ssl::context>& tls);
  /// Keeps `c` for the next request (at most kMaxIdleConnections; beyond that it is closed). Every connection idle
  /// longer than kMaxIdleTime is closed now: the pool is sorted by idle time, so a burst's extra connections do not
  /// stay open for good behind the one that keeps being reused.
  void give_back(std::unique_ptr<PooledConnection> c);

  const ClientConfig cfg;
  const RestClientOptions options;
  const RestClientTimeouts timeouts;  // options.timeouts
  const Result<ServerUrl> url;

 private:
  const NowFn now_;                           // options.now, or steady_clock: the pool's idle times
  std::unique_ptr<RequestThrottle> limiter_;  // null: no client-side limit
  std::mutex mu_;
  Result<std::shared_ptr<boost::asio::ssl::context>> tls_;
  std::string ca_pem_in_use_;
  std::unique_ptr<RefreshingFile> token_file_;
  std::unique_ptr<RefreshingFile> ca_file_;
  std::mutex pool_mu_;
  std::vector<std::unique_ptr<PooledConnection>> idle_;  // most recently used last
};

}  // namespace cfo::client
