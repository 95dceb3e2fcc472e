#pragma once
// When RestClient sends a request again, and after how long: client-go's rest.Request retry rules (with_retry.go),
// limited to requests that are safe to send twice.
#include <chrono>
#include <optional>
#include <string_view>

namespace cfo::client {

/// Limits of the retries of one request.
struct RetryOptions {
  /// Retries after the first attempt (client-go rest.Request maxRetries: 10). 0 turns retries off.
  int max_retries = 10;
  /// A Retry-After longer than this is not waited for: the answer goes back to the caller, whose own backoff
  /// (e.g. the work queue's) takes over. Ours; client-go has no cap.
  std::chrono::seconds max_retry_after{60};
  /// Wait before resending a GET whose connection was dropped (client-go answers such errors with an artificial
  /// "Retry-After: 1").
  std::chrono::milliseconds dropped_connection_wait{1000};
};

/// How one attempt ended, as far as retrying is concerned.
struct AttemptOutcome {
  unsigned status = 0;                     ///< HTTP status; 0 when no response arrived
  std::optional<int> retry_after_seconds;  ///< the Retry-After header in its delta-seconds form, when present
  bool connection_dropped = false;         ///< no response: the connection was reset or closed after it was opened
};

/// Whether sending the request twice has the effect of sending it once (RFC 9110 idempotent methods: GET, HEAD,
/// OPTIONS, PUT, DELETE), counting PATCH as idempotent for server-side apply and JSON merge patches, whose result
/// does not depend on how often they are applied. POST and JSON patches (RFC 6902) are not.
bool is_idempotent(std::string_view method, std::string_view content_type);

/// The wait before the next attempt of a request, or std::nullopt when `outcome` is final. `retries_done` counts
/// the retries already made (0 after the first attempt). Rules:
/// - never more than opts.max_retries retries;
/// - 429 with a Retry-After: retried for every method, because the apiserver rejects such requests (API Priority and
///   Fairness, max-in-flight) before any handler runs;
/// - 5xx with a Retry-After: retried for idempotent requests only (a 500/503/504 may come after the write happened);
/// - 429/5xx without a Retry-After, and every other status: final (client-go's checkWait);
/// - a dropped connection: retried for GET only, after opts.dropped_connection_wait (client-go retries GETs only);
/// - a Retry-After longer than opts.max_retry_after: final.
/// The wait is the Retry-After in seconds (0 allowed).
std::optional<std::chrono::milliseconds> retry_delay(std::string_view method, std::string_view content_type,
                                                     const AttemptOutcome& outcome, int retries_done,
                                                     const RetryOptions& opts);

}  // namespace cfo::client
