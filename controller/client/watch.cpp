// RestClient::watch: a GET whose chunked body is read as it arrives and split into newline-delimited events
// (api-concepts "Efficient detection of changes": one JSON watch event per line).
#include <boost/asio/ssl/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "client/line_splitter.hpp"
#include "client/response_observer.hpp"
#include "client/rest_client.hpp"
#include "client/rest_client_impl.hpp"
#include "client/tls_connection.hpp"

namespace cfo::client {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

/// One TLS record holds at most 16 KiB of plaintext, so a larger read buffer would never fill; each open watch
/// holds one for as long as it runs.
constexpr std::size_t kReadChunkBytes = std::size_t{16} * 1024;
/// How much of an error body is kept for the Status message.
constexpr std::size_t kMaxErrorBodyBytes = std::size_t{1024} * 1024;

/// Ends of the stream that are not failures: the server closed the connection (with or without the last chunk
/// or a TLS close_notify). client-go's StreamWatcher treats EOF and unexpected EOF alike as the end of a watch.
bool is_end_of_stream(const boost::system::error_code& ec) {
  return ec == http::error::end_of_stream || ec == http::error::partial_message || ec == asio::error::eof ||
         ec == asio::ssl::error::stream_truncated || ec == asio::error::connection_reset;
}

/// Silence allowed beyond a watch's timeoutSeconds before the stream counts as dead.
constexpr std::chrono::milliseconds kWatchIdleMargin{30'000};

/// The Retry-After of a response header (see parse_retry_after).
std::optional<int> retry_after_of(const http::response_parser<http::buffer_body>& parser) {
  const auto& res = parser.get();
  auto it = res.find(http::field::retry_after);
  if (it == res.end()) return std::nullopt;
  return parse_retry_after(std::string_view(it->value().data(), it->value().size()));
}

/// How one opening of the watch ended: streamed (successfully or not; final), or refused before the stream
/// started (maybe worth another attempt).
struct Opening {
  std::optional<Result<void>> final;  // set: return this
  AttemptOutcome outcome;             // otherwise: what the refusal looked like
  Result<void> refusal;               // and the error to return if it is not retried
  bool reused = false;                // it went over a kept-alive connection from the pool
};

}  // namespace

std::chrono::milliseconds watch_idle_limit(std::string_view target, std::chrono::milliseconds configured) {
  const auto query_start = target.find('?');
  if (query_start == std::string_view::npos) return configured;
  std::string_view query = target.substr(query_start + 1);
  constexpr std::string_view kName = "timeoutSeconds=";
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view param = query.substr(0, amp);
    if (param.starts_with(kName)) {
      const std::string_view digits = param.substr(kName.size());
      int64_t seconds = 0;
      auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), seconds);
      if (!digits.empty() && ec == std::errc() && end == digits.data() + digits.size() && seconds > 0 &&
          seconds <= int64_t{24} * 3600)
        return std::max(configured, std::chrono::milliseconds(seconds * 1000) + kWatchIdleMargin);
      return configured;
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return configured;
}

Result<void> RestClient::watch(const std::string& target, const std::function<bool(std::string_view)>& on_line,
                               StopToken& stop) {
  Impl& impl = *impl_;
  StopToken* client_stop = stop_.get();
  auto any_stop = [&] { return stop.stop_requested() || stopped(client_stop); };
  const std::string what = "watch " + target;
  if (auto checked = check_target(target); !checked) return fail(what + ": " + checked.error().message);
  const std::chrono::milliseconds idle_limit = watch_idle_limit(target, impl.timeouts.watch_idle_timeout_ms);

  // One opening: connect (or take the kept-alive connection a list just gave back), send, read the header; stream
  // the body when the answer is 2xx. `reuse` false: a new connection.
  auto open_and_stream = [&](bool reuse) -> Opening {
    Opening out;
    auto prepared = impl.prepare(what, target);
    if (!prepared) return {std::unexpected(prepared.error())};

    // Declaration order matters: the registrations are removed first, then the connection closes. A watch keeps
    // its connection to the end: the stream is never handed back, since a body cut short leaves it unusable.
    std::unique_ptr<PooledConnection> pc = reuse ? impl.take_idle(prepared->tls) : nullptr;
    out.reused = pc != nullptr;
    if (!pc) pc = std::make_unique<PooledConnection>(prepared->tls);
    TlsConnection& conn = pc->conn;
    // The stop callbacks run on the stopping thread: interrupt() shuts the socket down, which ends a blocked read.
    auto interrupt = [&conn] { conn.interrupt(); };
    ScopedStopCallback on_call_stop(&stop, interrupt);
    ScopedStopCallback on_client_stop(client_stop, interrupt);
    if (any_stop()) return {Result<void>{}};

    if (!out.reused)
      if (auto opened = conn.open(*impl.url, !impl.cfg.insecure_skip_tls_verify, impl.timeouts.connect_timeout_ms);
          !opened)
        return {any_stop() ? Result<void>{} : Result<void>(fail(what + ": " + opened.error().message))};
    if (any_stop()) return {Result<void>{}};

    conn.set_io_timeout(impl.timeouts.request_timeout_ms);
    auto req = impl.make_request(http::verb::get, target, {}, {}, accept_, prepared->token);
    boost::system::error_code ec;
    http::write(conn, req, ec);
    if (any_stop()) return {Result<void>{}};
    if (ec) {
      out.outcome.connection_dropped = is_dropped_connection(ec);
      out.refusal = fail(what + ": sending: " + describe_transport_error(ec, impl.timeouts.request_timeout_ms));
      return out;
    }

    beast::flat_buffer buffer;
    http::response_parser<http::buffer_body> parser;
    // A watch body has no end in sight. (Not boost::none: Beast 1.74 compares Content-Length against the optional
    // and then reports body_limit for every sized body.)
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());
    http::read_header(conn, buffer, parser, ec);
    if (any_stop()) return {Result<void>{}};
    if (ec) {
      out.outcome.connection_dropped = is_dropped_connection(ec);
      out.refusal = fail(
          what + ": reading the response header: " + describe_transport_error(ec, impl.timeouts.request_timeout_ms));
      return out;
    }

    const unsigned status = parser.get().result_int();
    notify_response("GET", impl.url->host_header(), status);  // rest_client_requests_total
    const bool ok = status >= 200 && status < 300;
    std::string error_body;
    LineSplitter lines;
    std::vector<char> chunk(kReadChunkBytes);
    while (!parser.is_done()) {
      parser.get().body().data = chunk.data();
      parser.get().body().size = chunk.size();
      conn.set_io_timeout(ok ? idle_limit : impl.timeouts.request_timeout_ms);
      http::read_some(conn, buffer, parser, ec);
      if (any_stop()) return {Result<void>{}};
      if (ec == http::error::need_buffer) ec = {};
      const std::size_t got = chunk.size() - parser.get().body().size;
      if (ok) {
        if (!lines.feed(std::string_view(chunk.data(), got), on_line)) return {Result<void>{}};
      } else if (error_body.size() < kMaxErrorBodyBytes) {
        error_body.append(chunk.data(), std::min(got, kMaxErrorBodyBytes - error_body.size()));
      }
      if (!ec) continue;
      if (is_end_of_stream(ec)) break;
      if (ec == beast::error::timeout && ok)
        return {Result<void>(
            fail(what + ": no data for " + std::to_string(idle_limit.count()) + " ms; the stream is considered dead"))};
      return {Result<void>(
          fail(what + ": reading the stream: " + describe_transport_error(ec, impl.timeouts.request_timeout_ms)))};
    }

    if (ok) {
      if (parser.is_done()) lines.finish(on_line);
      return {Result<void>{}};
    }
    // Refused before any event: the caller decides whether to open again.
    out.outcome.status = status;
    out.outcome.retry_after_seconds = retry_after_of(parser);
    out.refusal =
        std::unexpected(status_error(Response{status, std::move(error_body), out.outcome.retry_after_seconds}));
    return out;
  };

  for (int retries_done = 0;; ++retries_done) {
    if (any_stop() || !impl.throttle(&stop, client_stop)) return {};
    Opening opening = open_and_stream(/*reuse=*/true);
    // A kept-alive connection the server had closed while idle fails before any answer: the watch opens again at
    // once on a new connection, as Go's transport does, without counting a retry.
    if (!opening.final && opening.reused && opening.outcome.connection_dropped && opening.outcome.status == 0)
      opening = open_and_stream(/*reuse=*/false);
    if (opening.final) return std::move(*opening.final);
    auto delay = retry_delay("GET", "", opening.outcome, retries_done, impl.options.retry);
    if (!delay) return std::move(opening.refusal);
    if (!impl.sleep(*delay, &stop, client_stop)) return {};
  }
}

}  // namespace cfo::client
