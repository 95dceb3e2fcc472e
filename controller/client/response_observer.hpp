#pragma once
// A process-wide hook told about every apiserver response, so that a metrics layer can count requests
// (rest_client_requests_total{code,method,host}) without the client depending on it.
#include <cstdint>
#include <functional>
#include <string_view>

namespace cfo::client {

/// Told about one response: the HTTP method ("GET", "PATCH", ...; a watch is a "GET"), the apiserver's
/// "host:port", and the HTTP status. Called on the requesting thread after every response header (once per
/// attempt when a request is retried); must be quick, thread-safe and must not throw.
using ResponseObserver = std::function<void(std::string_view method, std::string_view host, unsigned status)>;

/// Installs `observer` for every RestClient of the process (an empty function removes it). Thread-safe.
void set_response_observer(ResponseObserver observer);

/// Calls the installed observer, if any. Used by RestClient.
void notify_response(std::string_view method, std::string_view host, unsigned status);

/// Told when a RestClient sends a request again on its own (client::RetryPolicy): `what` is "METHOD target", `reason`
/// why the attempt failed (an HTTP status, or the error of a connection that dropped, a response cut off included),
/// `delay_ms` the wait before the next attempt, `retry` its number (1 for the first retry). So that the operator logs
/// what the client layer does not (the seventeenth user trial: a LocalQueue list cut off after 443 s was sent again
/// without a word). Same rules as ResponseObserver.
using RetryObserver = std::function<void(std::string_view what, std::string_view reason, bool connection_dropped,
                                         int64_t delay_ms, int retry)>;

/// Installs `observer` for every RestClient of the process (an empty function removes it). Thread-safe.
void set_retry_observer(RetryObserver observer);

/// Calls the installed retry observer, if any. Used by RestClient.
void notify_retry(std::string_view what, std::string_view reason, bool connection_dropped, int64_t delay_ms, int retry);

}  // namespace cfo::client
