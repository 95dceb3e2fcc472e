// RestClient::watch: a GET whose chunked body is read as it arrives and split into newline-delimited events
// (api-concepts "Efficient detection of changes": one JSON watch event per line).
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include <algorithm>
#include <limits>
#include <vector>

#include "client/line_splitter.hpp"
#include "client/rest_client.hpp"
#include "client/rest_client_impl.hpp"
#include "client/tls_connection.hpp"

namespace cfo::client {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

constexpr std::size_t kReadChunkBytes = 64 * 1024;
/// How much of an error body is kept for the Status message.
constexpr std::size_t kMaxErrorBodyBytes = 1024 * 1024;

/// Ends of the stream that are not failures: the server closed the connection (with or without the last chunk
/// or a TLS close_notify). client-go's StreamWatcher treats EOF and unexpected EOF alike as the end of a watch.
bool is_end_of_stream(const boost::system::error_code& ec) {
  return ec == http::error::end_of_stream || ec == http::error::partial_message || ec == asio::error::eof ||
         ec == asio::ssl::error::stream_truncated || ec == asio::error::connection_reset;
}

/// Removes the stop callback when the watch returns, before the connection it closes is destroyed.
struct StopRegistration {
  StopToken& token;
  int id;
  ~StopRegistration() { token.remove_callback(id); }
};

}  // namespace

Result<void> RestClient::watch(const std::string& target, const std::function<bool(std::string_view)>& on_line,
                               StopToken& stop) {
  Impl& impl = *impl_;
  const std::string what = "watch " + target;
  if (auto checked = check_target(target); !checked) return fail(what + ": " + checked.error().message);
  if (stop.stop_requested()) return {};
  auto prepared = impl.prepare(what, target);
  if (!prepared) return std::unexpected(prepared.error());

  // Declaration order matters: the registration is removed first, then the connection closes, then the
  // io_context (with any posted, never-run close handler) goes away.
  asio::io_context ioc;
  TlsConnection conn(ioc, *prepared->tls);
  // The stop callback runs on the stopping thread: it only posts, and the close runs here, between steps.
  StopRegistration registration{stop, stop.on_stop([&conn, &ioc] { asio::post(ioc, [&conn] { conn.close(); }); })};

  if (auto opened = conn.open(*impl.url, !impl.cfg.insecure_skip_tls_verify, impl.timeouts.connect_timeout_ms); !opened)
    return stop.stop_requested() ? Result<void>{} : fail(what + ": " + opened.error().message);
  if (stop.stop_requested()) return {};

  auto& stream = conn.stream();
  auto& tcp_layer = beast::get_lowest_layer(stream);
  tcp_layer.expires_after(impl.timeouts.request_timeout_ms);
  auto req = impl.make_request(http::verb::get, target, {}, {}, prepared->token);
  auto ec = run_op(ioc, [&](auto handler) { http::async_write(stream, req, handler); });
  if (stop.stop_requested()) return {};
  if (ec) return fail(what + ": sending: " + describe_transport_error(ec, impl.timeouts.request_timeout_ms));

  beast::flat_buffer buffer;
  http::response_parser<http::buffer_body> parser;
  // A watch body has no end in sight. (Not boost::none: Beast 1.74 compares Content-Length against the optional
  // and then reports body_limit for every sized body.)
  parser.body_limit(std::numeric_limits<std::uint64_t>::max());
  ec = run_op(ioc, [&](auto handler) { http::async_read_header(stream, buffer, parser, handler); });
  if (stop.stop_requested()) return {};
  if (ec)
    return fail(what +
                ": reading the response header: " + describe_transport_error(ec, impl.timeouts.request_timeout_ms));

  const unsigned status = parser.get().result_int();
  const bool ok = status >= 200 && status < 300;
  std::string error_body;
  LineSplitter lines;
  std::vector<char> chunk(kReadChunkBytes);
  while (!parser.is_done()) {
    parser.get().body().data = chunk.data();
    parser.get().body().size = chunk.size();
    tcp_layer.expires_after(ok ? impl.timeouts.watch_idle_timeout_ms : impl.timeouts.request_timeout_ms);
    ec = run_op(ioc, [&](auto handler) { http::async_read_some(stream, buffer, parser, handler); });
    if (stop.stop_requested()) return {};
    if (ec == http::error::need_buffer) ec = {};
    const std::size_t got = chunk.size() - parser.get().body().size;
    if (ok) {
      if (!lines.feed(std::string_view(chunk.data(), got), on_line)) return {};
    } else if (error_body.size() < kMaxErrorBodyBytes) {
      error_body.append(chunk.data(), std::min(got, kMaxErrorBodyBytes - error_body.size()));
    }
    if (!ec) continue;
    if (is_end_of_stream(ec)) break;
    if (ec == beast::error::timeout && ok)
      return fail(what + ": no data for " + std::to_string(impl.timeouts.watch_idle_timeout_ms.count()) +
                  " ms; the stream is considered dead");
    return fail(what + ": reading the stream: " + describe_transport_error(ec, impl.timeouts.request_timeout_ms));
  }

  if (!ok) return std::unexpected(status_error(Response{status, std::move(error_body), 0}));
  if (parser.is_done()) lines.finish(on_line);
  return {};
}

}  // namespace cfo::client
