#include "client/retry_policy.hpp"

namespace cfo::client {

bool is_idempotent(std::string_view method, std::string_view content_type) {
  if (method == "GET" || method == "HEAD" || method == "OPTIONS" || method == "PUT" || method == "DELETE") return true;
  if (method != "PATCH") return false;
  // Media types may carry parameters ("application/merge-patch+json; charset=utf-8").
  const std::string_view type = content_type.substr(0, content_type.find(';'));
  return type == "application/apply-patch+yaml" || type == "application/merge-patch+json";
}

std::optional<std::chrono::milliseconds> retry_delay(std::string_view method, std::string_view content_type,
                                                     const AttemptOutcome& outcome, int retries_done,
                                                     const RetryOptions& opts) {
  if (retries_done >= opts.max_retries) return std::nullopt;
  if (outcome.connection_dropped) {
    if (method != "GET") return std::nullopt;
    return opts.dropped_connection_wait;
  }
  const bool throttled = outcome.status == 429;
  const bool server_error = outcome.status >= 500 && outcome.status <= 599;
  if (!throttled && !server_error) return std::nullopt;
  if (!outcome.retry_after_seconds || *outcome.retry_after_seconds < 0) return std::nullopt;
  if (std::chrono::seconds(*outcome.retry_after_seconds) > opts.max_retry_after) return std::nullopt;
  if (server_error && !is_idempotent(method, content_type)) return std::nullopt;
  return std::chrono::seconds(*outcome.retry_after_seconds);
}

}  // namespace cfo::client
