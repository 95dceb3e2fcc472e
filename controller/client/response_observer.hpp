#pragma once
// A process-wide hook told about every apiserver response, so that a metrics layer can count requests
// (rest_client_requests_total{code,method,host}) without the client depending on it.
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

}  // namespace cfo::client
