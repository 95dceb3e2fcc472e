#pragma once
// HTTPS requests to the apiserver over Boost.Beast, with token or client-certificate auth and verified TLS.
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "client/kubeconfig.hpp"
#include "client/retry_policy.hpp"
#include "client/wait.hpp"
#include "core/error.hpp"
#include "core/json.hpp"
#include "core/json_list_splitter.hpp"

namespace cfo::client {

/// A resource type: group ("" for core), version, plural resource name, and whether it is namespaced.
struct ResourceType {
  std::string group;
  std::string version;
  std::string plural;
  bool namespaced = true;

  /// "/api/v1" for the core group, "/apis/<group>/<version>" otherwise.
  std::string api_prefix() const;
  /// Collection path: "<prefix>/namespaces/<ns>/<plural>", or "<prefix>/<plural>" when ns is empty or the type
  /// is cluster-scoped.
  std::string collection_path(const std::string& ns) const;
  /// Object path: collection_path(ns) + "/" + name.
  std::string object_path(const std::string& ns, const std::string& name) const;
};

/// A raw HTTP response. `body` is the full body; `retry_after_seconds` is the Retry-After header in its
/// delta-seconds form (std::nullopt when absent or given as an HTTP date).
struct Response {
  unsigned status = 0;
  std::string body;
  std::optional<int> retry_after_seconds;
};

/// Options of a write. `field_manager` is sent as ?fieldManager=; `force` adds ?force=true (server-side apply);
/// `dry_run` adds ?dryRun=All.
struct WriteOptions {
  std::string field_manager = "codeflare-operator";
  bool force = true;
  bool dry_run = false;
};

/// Stops a blocking watch from another thread.
class StopToken {
 public:
  void request_stop();
  bool stop_requested() const { return stopped_.load(); }
  /// Registers a callback run by request_stop() (e.g. closing a socket). Runs at once if already stopped.
  /// Returns an id for remove_callback. Callbacks run under the token's lock, so once remove_callback() has
  /// returned its callback is neither running nor will run; a callback must be short and must not call the token.
  int on_stop(std::function<void()> cb);
  void remove_callback(int id);

 private:
  std::atomic<bool> stopped_{false};
  std::mutex mu_;
  int next_id_ = 0;
  std::map<int, std::function<void()>> callbacks_;
};

/// Time limits of a RestClient. The defaults are the ones documented on RestClient; tests pass shorter ones.
struct RestClientTimeouts {
  std::chrono::milliseconds connect_timeout_ms{10'000};  ///< DNS + TCP connect + TLS handshake, together
  /// Writing a request, and each read of its response: a response still arriving is read to its end (bounded by the
  /// body limit), one silent this long is given up.
  std::chrono::milliseconds request_timeout_ms{60'000};
  /// A watch silent this long is considered dead; a watch whose target carries timeoutSeconds gets at least that
  /// timeout plus 30 s (watch_idle_limit), since a server without periodic bookmarks may be silent that long.
  std::chrono::milliseconds watch_idle_timeout_ms{90'000};
};

/// Everything about a RestClient besides the apiserver and its credentials. The defaults are those of a
/// controller-runtime client: no client-side rate limit, client-go's retries, a token file re-read every minute
/// and a CA file every 5 minutes.
struct RestClientOptions {
  RestClientTimeouts timeouts;
  /// Client-side rate limit in requests per second, a token bucket as client-go's (every attempt, retries and watch
  /// requests included, waits before sending). 0 or negative: no limit, the default (controller-runtime sets
  /// QPS -1 and relies on the apiserver's API Priority and Fairness).
  double qps = 0;
  /// Size of the bucket when qps > 0: how many requests may go at once after a quiet spell (client-go
  /// DefaultBurst 10). Values below 1 count as 1.
  int burst = 10;
  /// Retries of 429/5xx answers carrying Retry-After, and of dropped GETs (see retry_delay).
  RetryOptions retry;
  /// How long a bearer token read from a file is used before the file is read again (client-go: one minute).
  std::chrono::milliseconds token_file_max_age_ms{60'000};
  /// How long a CA bundle read from a file is trusted before the file is read again; a changed bundle gives new
  /// connections a new TLS context (client-go CA rotation: 5 minutes).
  std::chrono::milliseconds ca_file_max_age_ms{300'000};
  /// Clock of the rate limiter and of the file reloads; steady_clock when empty. For tests.
  NowFn now;
  /// The waits of the rate limiter and of retries; sleep_unless_stopped when empty. For tests.
  SleepFn sleep;
};

/// A client for one apiserver. Thread-safe: a call uses a connection of its own for its duration (HTTP/1.1, TLS 1.2+,
/// TCP_NODELAY, TCP keepalive), taken from the client's idle keep-alive connections when there is one made with the
/// CA in use, else opened; after a complete answer the connection goes back for the next call (at most
/// kMaxIdleConnections = 25 kept, each for at most 90 s idle, client-go's and Go's transport settings). A call that
/// finds a kept connection closed by the server before any answer is sent again at once on a new one. Calls from
/// several threads share only the (locked) pool, the token and CA caches and the rate limiter. Copies share all of
/// that too. Timeouts: connect+TLS 10 s, a whole non-watch request 60 s (per attempt). A token file is re-read
/// every minute, a CA file every 5 minutes (client-go's cadence). Requests are retried as retry_delay says: at most
/// 10 retries, each after the Retry-After the apiserver asked for.
class RestClient {
 public:
  explicit RestClient(ClientConfig cfg);
  /// Same, with other time limits.
  RestClient(ClientConfig cfg, RestClientTimeouts timeouts);
  /// Same, with other options (rate limit, retries, reload periods, test clocks).
  RestClient(ClientConfig cfg, RestClientOptions options);

  /// A client that shares everything with this one (configuration, credentials, rate limiter) and whose calls also
  /// end when `stop` is requested: a call that is connecting, waiting for the rate limiter or a Retry-After,
  /// sending or reading returns at once, with an Error "cancelled" (reason "Cancelled"), and later calls fail at
  /// once; a watch returns successfully, as when its own StopToken is requested. Replaces an earlier token of
  /// this client. Used to end the requests of the caches at shutdown without touching other users of the client.
  RestClient with_stop(std::shared_ptr<StopToken> stop) const;

  /// True once the StopToken given to with_stop was requested: every later call fails at once ("cancelled").
  bool stop_requested() const;

  /// A client that shares everything with this one and sends `accept` (a header value without line breaks) as the
  /// Accept header of its requests and watches instead of "application/json": kMetadataListAccept and
  /// kMetadataAccept ask for objects' metadata only. The body parsed is JSON either way.
  RestClient with_accept(std::string accept) const;

  /// Sends one request, with retries (see the class comment). `target` is the path with query
  /// ("/api/v1/namespaces?limit=500"). Returns the final response for any HTTP status; errors are transport
  /// failures (connect, TLS, timeout), an unusable request or configuration (unknown method, a target not starting
  /// with '/', bad server URL or TLS material), or a cancellation (with_stop).
  Result<Response> request(std::string_view method, const std::string& target, const std::string& body = {},
                           const std::string& content_type = "application/json");

  /// GET and parse. A non-2xx status becomes an Error with http_status and the apiserver's Status message/reason.
  Result<json::Document> get_json(const std::string& target);

  /// GET of a list, read as it arrives: `on_item` receives each element of its "items" as JSON text (and the list's
  /// apiVersion and kind as far as they have come; json::ListSplitter), and the result is the list without its items
  /// (metadata.resourceVersion, metadata.continue). No more than one item and one read buffer (16 KiB) are held at a
  /// time, so a list served unpaged (resourceVersion=0 from the watch cache) costs no more memory than its items'
  /// use downstream. Errors as get_json, plus json::ListSplitter's and `on_item`'s; the request is sent again (as
  /// `request`) only while no byte of its body has come. Items larger than 64 MiB are refused.
  Result<json::Document> get_list(const std::string& target, const json::ListSplitter::ItemFn& on_item);

  /// Server-side apply (PATCH, application/apply-patch+yaml with a JSON body) of `obj` to `path`
  /// (an object path, or object path + "/status"). Returns the object the server returned.
  Result<json::Document> apply(const std::string& path, const json::Value& obj, const WriteOptions& opts = {});

  /// JSON merge patch (application/merge-patch+json).
  Result<json::Document> merge_patch(const std::string& path, const json::Value& patch, const WriteOptions& opts = {});

  /// JSON patch (RFC 6902, application/json-patch+json): `ops` is the array of operations. A failed `test`
  /// operation fails the whole patch (HTTP 422 on kube-apiserver) and nothing is written.
  Result<json::Document> json_patch(const std::string& path, const json::Value& ops, const WriteOptions& opts = {});

  /// POST `obj` to a collection path.
  Result<json::Document> create(const std::string& collection_path, const json::Value& obj,
                                const WriteOptions& opts = {});

  /// DELETE an object path. 404 is not an error.
  Result<void> remove(const std::string& path);

  /// DELETE of the object at `path` only while its metadata.uid is `uid` (DeleteOptions preconditions.uid, so that
  /// an object of the same name made since it was read is left alone). Returns true when this request deleted it,
  /// false when it was gone already (404) or is another object now (409, the precondition failed); any other
  /// non-2xx status is an Error.
  Result<bool> remove_exactly(const std::string& path, const std::string& uid);

  /// Streams a watch: GET `target` (which must carry ?watch=1 or &watch=true) and calls `on_line` for every
  /// newline-delimited JSON line. Returns when the server ends the stream, when `on_line` returns false, or when
  /// `stop` is requested (then it returns successfully). A non-2xx status is returned as an Error with http_status.
  /// A stream that delivers no bytes for longer than its timeoutSeconds + 30 s (or, without timeoutSeconds,
  /// RestClientTimeouts::watch_idle_timeout_ms) is given up with an Error that says so; a peer that vanished is
  /// found sooner by TCP keepalive (about a minute). A connection that the server
  /// closes mid-body ends the watch successfully, as client-go treats an unexpected EOF on a watch.
  /// Only the opening request is retried (429/5xx with Retry-After, a connection dropped before the response
  /// header), never a stream that has started: the caller (the informer) re-watches from its resourceVersion.
  Result<void> watch(const std::string& target, const std::function<bool(std::string_view)>& on_line, StopToken& stop);

  const ClientConfig& config() const;

  /// Receives a response body piece by piece (get_list); an error ends the request.
  using BodySink = std::function<Result<void>(std::string_view piece)>;

 private:
  /// request(), with the 2xx body handed to `sink` when one is given.
  Result<Response> send(std::string_view method, const std::string& target, const std::string& body,
                        const std::string& content_type, const BodySink* sink);

  struct Impl;
  std::shared_ptr<Impl> impl_;
  std::shared_ptr<StopToken> stop_;          // with_stop(); null otherwise
  std::string accept_ = "application/json";  // with_accept()
};

/// Accept headers that ask kube-apiserver (1.15 and later) for the metadata of objects only, as meta.k8s.io/v1
/// PartialObjectMetadataList (a list) and PartialObjectMetadata (each object of a watch's events), falling back to
/// whole objects (application/json) where that is not served. client-go's metadata client asks the same way.
inline constexpr const char* kMetadataListAccept =
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
inline constexpr const char* kMetadataAccept =
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";

/// Turns a non-2xx response into an Error carrying the Status message, reason and code.
Error status_error(const Response& r);

}  // namespace cfo::client
