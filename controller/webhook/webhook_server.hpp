#pragma once
// The HTTPS server of the admission webhooks: Boost.Beast over OpenSSL, one handler per path, the serving
// certificate reloaded when its files change, and an answer budget below the apiserver's webhook timeout.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "runtime/http_server.hpp"
#include "runtime/webhook_observer.hpp"
#include "webhook/validators.hpp"

namespace cfo::webhook {

/// Where the server listens and how long it waits. The defaults follow controller-runtime's webhook server (port
/// 9443, certificate files tls.crt/tls.key, a 10 s certificate check) with explicit time limits.
struct WebhookServerOptions {
  /// Default ":9443" (every address). Parse --webhook-bind-address with runtime::parse_bind_address.
  runtime::BindAddress bind{"", 9443};
  /// The serving certificate chain and key (PEM). controller-runtime's default folder is
  /// /tmp/k8s-webhook-server/serving-certs; cert-manager's Secret mounted there has these two file names.
  std::string cert_path = "/tmp/k8s-webhook-server/serving-certs/tls.crt";
  std::string key_path = "/tmp/k8s-webhook-server/serving-certs/tls.key";
  /// How often the certificate files are compared with what is loaded.
  std::chrono::milliseconds cert_check_interval{10'000};
  /// Longest time from a request read to its answer. A handler still running then gets HTTP 503 sent instead (the
  /// webhook's failurePolicy decides), so the apiserver always hears back before its timeout (timeoutSeconds, 10 s
  /// in our configurations). When the apiserver sends its own deadline (?timeout=10s), the budget is at most half
  /// of it.
  std::chrono::milliseconds answer_budget{5'000};
  /// TLS handshake of a new connection.
  std::chrono::milliseconds handshake_timeout{5'000};
  /// Reading one request once its first byte arrived.
  std::chrono::milliseconds read_timeout{5'000};
  /// A kept-alive connection waiting for its next request; above Go's idle-connection timeout of the apiserver's
  /// client (90 s), so that the client, not the server, closes idle connections.
  std::chrono::milliseconds idle_timeout{120'000};
  /// Writing one answer.
  std::chrono::milliseconds write_timeout{5'000};
  /// Threads that run handlers (decisions are CPU-bound, a few ms each); the I/O runs on one more thread.
  int handler_threads = 2;
  /// Open connections beyond this are closed at once.
  int max_connections = 256;
  /// Receives every request's start and end (metrics); may be null.
  std::shared_ptr<runtime::WebhookObserver> observer;
};

/// Serves AdmissionReview POSTs over HTTPS (TLS 1.2+, HTTP/1.1 keep-alive, TCP_NODELAY). For each registered path:
/// POST with Content-Type application/json, a body of at most kMaxReviewBytes (else 413), decoded by
/// decode_admission_review (else 400); the handler's response is sent as an AdmissionReview with the request's uid
/// (200). An unknown path is 404, another method 405, another content type 415, a handler that throws 500, a handler
/// over the answer budget 503. Without a loaded certificate, connections are closed at once. Nothing a client sends
/// ends the server.
class WebhookServer {
 public:
  explicit WebhookServer(WebhookServerOptions options);
  WebhookServer(const WebhookServer&) = delete;
  WebhookServer& operator=(const WebhookServer&) = delete;
  /// Stops the server.
  ~WebhookServer();

  /// Serves `handler` at `path` (e.g. validate_path(codeflare_workload_kind())). Errors: after start(), a path
  /// that does not start with '/', or one already registered.
  Result<void> handle(const std::string& path, AdmissionHandler handler);

  /// Loads the certificate (a missing or bad pair is logged and retried every cert_check_interval: the
  /// self-managed certificates may not be written yet), binds and listens (a port in use is reported here), and
  /// serves on new threads. Errors: bind/listen failure, or already started.
  Result<void> start();

  /// The bound port (the real one when port 0 was asked); 0 before start().
  uint16_t port() const;

  /// True once a certificate is loaded (readiness: the apiserver can reach us).
  bool has_certificate() const;

  /// The PEM certificate being served ("" before one is loaded).
  std::string serving_certificate() const;

  /// The registered paths, sorted.
  std::vector<std::string> paths() const;

  /// Closes the listener and every connection, waits for the handlers that run, and joins the threads. Idempotent.
  void stop();

  struct Impl;  ///< defined in webhook_server.cpp

 private:
  std::unique_ptr<Impl> impl_;
};

/// Parses a Go duration as the apiserver writes it in ?timeout= ("10s", "1m30s", "500ms", "1.5s"). Errors: empty,
/// a number without a unit, an unknown unit, or a negative value.
Result<std::chrono::milliseconds> parse_go_duration(std::string_view text);

}  // namespace cfo::webhook
