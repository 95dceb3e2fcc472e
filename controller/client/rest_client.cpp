#include "client/rest_client.hpp"

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>

#include "client/query.hpp"
#include "client/response_observer.hpp"
#include "client/rest_client_impl.hpp"
#include "client/tls_connection.hpp"
#include "client/tls_context.hpp"

namespace cfo::client {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

constexpr const char* kUserAgent = "codeflare-operator/0.1";
/// Largest response body accepted from a non-watch request (a big list page can be tens of megabytes).
constexpr std::uint64_t kMaxBodyBytes = 512ull * 1024 * 1024;
constexpr std::uint32_t kMaxHeaderBytes = 64 * 1024;
/// How much of a body one read takes: one TLS record holds at most 16 KiB of plaintext.
constexpr std::size_t kReadPieceBytes = std::size_t{16} * 1024;

bool is_success(unsigned status) { return status >= 200 && status < 300; }

/// The query of a write, in the order fieldManager, force, dryRun (client-go's PatchOptions/CreateOptions).
std::string write_target(std::string path, const WriteOptions& opts, bool allow_force) {
  if (!opts.field_manager.empty()) path = append_query(std::move(path), "fieldManager", opts.field_manager);
  if (allow_force && opts.force) path = append_query(std::move(path), "force", "true");
  if (opts.dry_run) path = append_query(std::move(path), "dryRun", "All");
  return path;
}

}  // namespace

// --- Impl -------------------------------------------------------------------------------------------------------

RestClient::Impl::Impl(ClientConfig c, RestClientOptions o)
    : cfg(std::move(c)),
      options(std::move(o)),
      timeouts(options.timeouts),
      url(parse_server_url(cfg.server)),
      now_(steady_now_unless(options.now)),
      tls_(make_tls_context(cfg.ca_pem, cfg.insecure_skip_tls_verify, cfg.client_cert_pem, cfg.client_key_pem)),
      ca_pem_in_use_(cfg.ca_pem) {
  if (options.qps > 0 && std::isfinite(options.qps))
    limiter_ = std::make_unique<RequestThrottle>(options.qps, options.burst, options.now);
  if (!cfg.bearer_token_file.empty())
    token_file_ = std::make_unique<RefreshingFile>(cfg.bearer_token_file, options.token_file_max_age_ms,
                                                   cfg.bearer_token, true, options.now);
  if (!cfg.ca_file.empty() && !cfg.insecure_skip_tls_verify)
    ca_file_ =
        std::make_unique<RefreshingFile>(cfg.ca_file, options.ca_file_max_age_ms, cfg.ca_pem, false, options.now);
}

bool RestClient::Impl::throttle(StopToken* a, StopToken* b) {
  const auto wait = limiter_ ? limiter_->reserve() : std::chrono::nanoseconds::zero();
  if (wait <= std::chrono::nanoseconds::zero()) return !stopped(a) && !stopped(b);
  return sleep(wait, a, b);
}

bool RestClient::Impl::sleep(std::chrono::nanoseconds delay, StopToken* a, StopToken* b) {
  const std::array<StopToken*, 2> stops{a, b};
  return options.sleep ? options.sleep(delay, stops) : sleep_unless_stopped(delay, stops);
}

std::optional<int> parse_retry_after(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  int seconds = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), seconds);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size() || seconds < 0) return std::nullopt;
  return seconds;
}

Error cancelled_error(const std::string& what) { return Error{what + ": cancelled", 0, "Cancelled"}; }

Result<std::shared_ptr<asio::ssl::context>> RestClient::Impl::tls_context() {
  std::lock_guard lock(mu_);
  if (ca_file_) {
    auto pem = ca_file_->get();
    if (pem && *pem != ca_pem_in_use_) {
      auto fresh = make_tls_context(*pem, false, cfg.client_cert_pem, cfg.client_key_pem);
      if (fresh) tls_ = std::move(fresh);  // a bad new bundle keeps the working context
      ca_pem_in_use_ = *pem;
    }
  }
  return tls_;
}

Result<RestClient::Impl::Prepared> RestClient::Impl::prepare(const std::string& what, const std::string& target) {
  if (auto checked = check_target(target); !checked) return fail(what + ": " + checked.error().message);
  if (!url) return fail(what + ": " + url.error().message);
  auto tls = tls_context();
  if (!tls) return fail(what + ": " + tls.error().message);
  auto token = bearer_token();
  if (!token) return fail(what + ": bearer token: " + token.error().message);
  return Prepared{std::move(*tls), std::move(*token)};
}

Result<std::string> RestClient::Impl::bearer_token() {
  Result<std::string> token = token_file_ ? token_file_->get() : Result<std::string>(cfg.bearer_token);
  // A line break would end the Authorization header early and let the rest pass as headers of its own.
  if (token && token->find_first_of("\r\n") != std::string::npos) return fail("the token contains a line break");
  return token;
}

Result<void> check_target(const std::string& target) {
  if (target.empty() || target.front() != '/') return fail("the request path must start with '/'");
  if (target.find_first_of(" \r\n") != std::string::npos)
    return fail("the request path must not contain spaces or line breaks");
  return {};
}

http::request<http::string_body> RestClient::Impl::make_request(http::verb verb, const std::string& target,
                                                                const std::string& body,
                                                                const std::string& content_type,
                                                                const std::string& accept,
                                                                const std::string& token) const {
  http::request<http::string_body> req{verb, url->path_prefix + target, 11};
  req.set(http::field::host, url->host_header());
  req.set(http::field::user_agent, kUserAgent);
  req.set(http::field::accept, accept);
  if (!token.empty()) req.set(http::field::authorization, "Bearer " + token);
  // Impersonation (kubeconfig `as`...): the apiserver authorizes the request as this user.
  if (!cfg.impersonate_user.empty()) {
    req.set("Impersonate-User", cfg.impersonate_user);
    if (!cfg.impersonate_uid.empty()) req.set("Impersonate-Uid", cfg.impersonate_uid);
    for (const auto& g : cfg.impersonate_groups) req.insert("Impersonate-Group", g);
    for (const auto& [key, values] : cfg.impersonate_extra)
      for (const auto& v : values) req.insert("Impersonate-Extra-" + query_escape(key), v);
  }
  if (!body.empty() || verb == http::verb::post || verb == http::verb::patch || verb == http::verb::put)
    req.set(http::field::content_type, content_type);
  req.keep_alive(true);
  req.body() = body;
  req.prepare_payload();
  return req;
}

// --- RestClient -------------------------------------------------------------------------------------------------

RestClient::RestClient(ClientConfig cfg) : RestClient(std::move(cfg), RestClientOptions{}) {}

RestClient::RestClient(ClientConfig cfg, RestClientTimeouts timeouts)
    : RestClient(std::move(cfg), RestClientOptions{.timeouts = timeouts}) {}

RestClient::RestClient(ClientConfig cfg, RestClientOptions options)
    : impl_(std::make_shared<Impl>(std::move(cfg), std::move(options))) {}

RestClient RestClient::with_stop(std::shared_ptr<StopToken> stop) const {
  RestClient out = *this;
  out.stop_ = std::move(stop);
  return out;
}

bool RestClient::stop_requested() const { return stopped(stop_.get()); }

RestClient RestClient::with_accept(std::string accept) const {
  RestClient out = *this;
  out.accept_ = std::move(accept);
  return out;
}

const ClientConfig& RestClient::config() const { return impl_->cfg; }

std::unique_ptr<PooledConnection> RestClient::Impl::take_idle(const std::shared_ptr<asio::ssl::context>& tls) {
  std::vector<std::unique_ptr<PooledConnection>> expired;  // closed outside the lock
  std::unique_ptr<PooledConnection> found;
  {
    std::lock_guard lock(pool_mu_);
    const auto now = now_();
    while (!idle_.empty()) {
      auto c = std::move(idle_.back());
      idle_.pop_back();
      if (c->tls == tls && now - c->idle_since < kMaxIdleTime) {
        found = std::move(c);
        break;
      }
      expired.push_back(std::move(c));
    }
  }
  for (auto& c : expired) c->conn.close();
  return found;
}

void RestClient::Impl::give_back(std::unique_ptr<PooledConnection> c) {
  const auto now = now_();
  c->idle_since = now;
  std::vector<std::unique_ptr<PooledConnection>> closing;  // closed outside the lock
  {
    std::lock_guard lock(pool_mu_);
    // The oldest first: the pool is in the order connections came back.
    std::size_t expired = 0;
    while (expired < idle_.size() && now - idle_[expired]->idle_since >= kMaxIdleTime) ++expired;
    for (std::size_t i = 0; i < expired; ++i) closing.push_back(std::move(idle_[i]));
    idle_.erase(idle_.begin(), idle_.begin() + static_cast<std::ptrdiff_t>(expired));
    if (idle_.size() >= kMaxIdleConnections)
      closing.push_back(std::move(c));
    else
      idle_.push_back(std::move(c));
  }
  for (auto& old : closing) old->conn.close();
}

RestClient::Impl::Attempt RestClient::Impl::send_once(http::verb verb, const std::string& what,
                                                      const std::string& target, const std::string& body,
                                                      const std::string& content_type, const std::string& accept,
                                                      StopToken* stop, const BodySink* sink) {
  Impl& impl = *this;
  auto prepared = impl.prepare(what, target);
  if (!prepared) return {std::unexpected(prepared.error())};
  auto req = impl.make_request(verb, target, body, content_type, accept, prepared->token);

  // A kept-alive connection is used when there is one; a request that finds it closed by the server before any
  // answer came (it timed out while idle) is sent again at once on a new connection, as Go's transport does.
  for (int fresh_tries = 0;; ++fresh_tries) {
    std::unique_ptr<PooledConnection> pc = fresh_tries == 0 ? impl.take_idle(prepared->tls) : nullptr;
    const bool reused = pc != nullptr;
    if (!pc) pc = std::make_unique<PooledConnection>(prepared->tls);
    // Removed before the connection goes back to the pool or away, so that a later stop never touches it.
    std::optional<ScopedStopCallback> on_stop;
    on_stop.emplace(stop, [c = pc.get()] { c->conn.interrupt(); });
    if (stopped(stop)) return {std::unexpected(cancelled_error(what))};

    if (!reused)
      if (auto opened = pc->conn.open(*impl.url, !impl.cfg.insecure_skip_tls_verify, impl.timeouts.connect_timeout_ms);
          !opened)
        return {stopped(stop) ? std::unexpected(cancelled_error(what)) : fail(what + ": " + opened.error().message)};
    if (stopped(stop)) return {std::unexpected(cancelled_error(what))};

    auto& stream = pc->conn;
    stream.set_io_timeout(impl.timeouts.request_timeout_ms);
    boost::system::error_code ec;
    http::write(stream, req, ec);
    if (stopped(stop)) return {std::unexpected(cancelled_error(what))};
    if (ec && reused && is_dropped_connection(ec)) continue;
    if (ec)
      return {fail(what + ": sending: " + describe_transport_error(ec, impl.timeouts.request_timeout_ms)),
              is_dropped_connection(ec)};

    beast::flat_buffer buffer;
    http::response_parser<http::buffer_body> parser;
    parser.header_limit(kMaxHeaderBytes);
    // A streamed body is held one piece at a time, so only a kept one is limited. (Not boost::none: Beast 1.74
    // compares Content-Length against the optional and then reports body_limit for every sized body.)
    parser.body_limit(sink ? std::numeric_limits<std::uint64_t>::max() : kMaxBodyBytes);
    ec = {};
    http::read_header(stream, buffer, parser, ec);
    if (stopped(stop)) return {std::unexpected(cancelled_error(what))};
    if (ec && reused && is_dropped_connection(ec) && !parser.got_some()) continue;
    if (ec)
      return {fail(what + ": reading the response: " + describe_transport_error(ec, impl.timeouts.request_timeout_ms)),
              is_dropped_connection(ec)};

    Response out;
    out.status = parser.get().result_int();
    const bool streaming = sink != nullptr && is_success(out.status);
    bool streamed = false;
    // The timeout is per read: a response that keeps arriving (a list page of megabytes on a slow link) is read to
    // its end, as client-go does with no overall timeout; one that stops for request_timeout_ms is given up.
    std::array<char, kReadPieceBytes> piece{};
    std::string& kept = out.body;
    std::size_t used = 0;
    if (!streaming)
      if (auto length = parser.content_length(); length && *length <= kMaxBodyBytes) kept.reserve(*length);
    while (!ec && !parser.is_done()) {
      auto& b = parser.get().body();
      if (streaming) {
        b.data = piece.data();
        b.size = piece.size();
      } else {
        if (kept.size() - used < kReadPieceBytes) kept.resize(std::max(used + kReadPieceBytes, kept.capacity()));
        b.data = kept.data() + used;
        b.size = kept.size() - used;
      }
      const std::size_t room = b.size;
      http::read_some(stream, buffer, parser, ec);
      if (ec == http::error::need_buffer) ec = {};
      const std::size_t got = room - parser.get().body().size;
      if (!streaming) {
        used += got;
      } else if (got > 0) {
        streamed = true;
        if (auto fed = (*sink)(std::string_view(piece.data(), got)); !fed) {
          Attempt refused{fail(what + ": " + fed.error().message)};
          refused.streamed = true;
          return refused;
        }
      }
    }
    kept.resize(used);
    if (stopped(stop)) return {std::unexpected(cancelled_error(what))};
    if (ec) {
      Attempt broken{
          fail(what + ": reading the response: " + describe_transport_error(ec, impl.timeouts.request_timeout_ms)),
          is_dropped_connection(ec)};
      broken.streamed = streamed;
      return broken;
    }

    auto& res = parser.get();
    const auto method = http::to_string(verb);  // rest_client_requests_total (client/response_observer.hpp)
    notify_response({method.data(), method.size()}, impl.url->host_header(), out.status);
    if (auto it = res.find(http::field::retry_after); it != res.end())
      out.retry_after_seconds = parse_retry_after(std::string_view(it->value().data(), it->value().size()));
    const bool keep = res.keep_alive();
    on_stop.reset();
    if (keep && !stopped(stop)) impl.give_back(std::move(pc));
    Attempt done{std::move(out)};
    done.streamed = streamed;
    return done;
  }
}

Result<Response> RestClient::request(std::string_view method, const std::string& target, const std::string& body,
                                     const std::string& content_type) {
  return send(method, target, body, content_type, nullptr);
}

Result<Response> RestClient::send(std::string_view method, const std::string& target, const std::string& body,
                                  const std::string& content_type, const BodySink* sink) {
  Impl& impl = *impl_;
  StopToken* stop = stop_.get();
  const std::string what = std::string(method) + " " + target;
  http::verb verb = http::string_to_verb(beast::string_view(method.data(), method.size()));
  if (verb == http::verb::unknown) return fail(what + ": unknown HTTP method");

  for (int retries_done = 0;; ++retries_done) {
    if (!impl.throttle(stop, nullptr)) return std::unexpected(cancelled_error(what));
    Impl::Attempt attempt = impl.send_once(verb, what, target, body, content_type, accept_, stop, sink);
    if (attempt.streamed && !attempt.result) return std::move(attempt.result);  // the sink has seen part of it
    AttemptOutcome outcome;
    outcome.connection_dropped = attempt.connection_dropped;
    if (attempt.result) {
      outcome.status = attempt.result->status;
      outcome.retry_after_seconds = attempt.result->retry_after_seconds;
    }
    auto delay = retry_delay(method, content_type, outcome, retries_done, impl.options.retry);
    if (!delay) return std::move(attempt.result);
    notify_retry(what, attempt.result ? "HTTP " + std::to_string(outcome.status) : attempt.result.error().message,
                 outcome.connection_dropped, delay->count(), retries_done + 1);
    if (!impl.sleep(*delay, stop, nullptr)) return std::unexpected(cancelled_error(what));
  }
}

namespace {
Result<json::Document> json_result(const Result<Response>& r, const std::string& what) {
  if (!r) return std::unexpected(r.error());
  if (!is_success(r->status)) return std::unexpected(status_error(*r));
  auto doc = json::parse(r->body);
  if (!doc) return fail(what + ": the response is not JSON: " + doc.error().message);
  return doc;
}
}  // namespace

Result<json::Document> RestClient::get_json(const std::string& target) {
  return json_result(request("GET", target), "GET " + target);
}

Result<json::Document> RestClient::get_list(const std::string& target, const json::ListSplitter::ItemFn& on_item) {
  const std::string what = "GET " + target;
  // One splitter for all attempts: an attempt is only repeated while no byte of its body has come (send).
  json::ListSplitter splitter;
  const BodySink sink = [&](std::string_view piece) { return splitter.feed(piece, on_item); };
  auto r = send("GET", target, {}, "application/json", &sink);
  if (!r) return std::unexpected(r.error());
  if (!is_success(r->status)) return std::unexpected(status_error(*r));
  auto envelope = splitter.finish();
  if (!envelope) return fail(what + ": " + envelope.error().message);
  return envelope;
}

Result<json::Document> RestClient::apply(const std::string& path, const json::Value& obj, const WriteOptions& opts) {
  // Server-side apply takes YAML; JSON is YAML, so the object is sent as JSON text.
  std::string target = write_target(path, opts, true);
  return json_result(request("PATCH", target, json::dump(obj), "application/apply-patch+yaml"), "PATCH " + target);
}

Result<json::Document> RestClient::merge_patch(const std::string& path, const json::Value& patch,
                                               const WriteOptions& opts) {
  // `force` is only valid for apply patches: the apiserver rejects it on other patch types.
  std::string target = write_target(path, opts, false);
  return json_result(request("PATCH", target, json::dump(patch), "application/merge-patch+json"), "PATCH " + target);
}

Result<json::Document> RestClient::json_patch(const std::string& path, const json::Value& ops,
                                              const WriteOptions& opts) {
  std::string target = write_target(path, opts, false);
  return json_result(request("PATCH", target, json::dump(ops), "application/json-patch+json"), "PATCH " + target);
}

Result<json::Document> RestClient::create(const std::string& collection_path, const json::Value& obj,
                                          const WriteOptions& opts) {
  std::string target = write_target(collection_path, opts, false);
  return json_result(request("POST", target, json::dump(obj), "application/json"), "POST " + target);
}

Result<void> RestClient::remove(const std::string& path) {
  auto r = request("DELETE", path);
  if (!r) return std::unexpected(r.error());
  if (is_success(r->status) || r->status == 404) return {};
  return std::unexpected(status_error(*r));
}

Result<bool> RestClient::remove_exactly(const std::string& path, const std::string& uid) {
  json::Document options(rapidjson::kObjectType);
  auto& a = options.GetAllocator();
  options.AddMember("apiVersion", "v1", a);
  options.AddMember("kind", "DeleteOptions", a);
  json::Value preconditions(rapidjson::kObjectType);
  preconditions.AddMember("uid", json::str(uid, a), a);
  options.AddMember("preconditions", preconditions, a);
  auto r = request("DELETE", path, json::dump(options), "application/json");
  if (!r) return std::unexpected(r.error());
  if (is_success(r->status)) return true;
  if (r->status == 404 || r->status == 409) return false;
  return std::unexpected(status_error(*r));
}

}  // namespace cfo::client
